import { describe, expect, test } from "bun:test";
import { recordingClient } from "../../test/support/recording-client.ts";
import { resources } from "./gvr.ts";
import { apply, applyStatus } from "./server-side-apply.ts";

const applyPatch = "application/apply-patch+yaml";

describe("apply", () => {
  test("PATCHes the apply configuration with apiVersion and kind from the resource, the field manager and force", async () => {
    const { client, sent } = await recordingClient();
    await apply(client, resources.deployments, { metadata: { name: "web", namespace: "shop" }, spec: { replicas: 3 } }, { fieldManager: "scaler", force: true });
    expect(sent).toEqual([
      {
        method: "PATCH",
        path: "/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=scaler&force=true",
        contentType: applyPatch,
        body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 3 } },
      },
    ]);
  });

  test("applyStatus goes to the status subresource; a cluster-scoped resource has no namespace in the path", async () => {
    const { client, sent } = await recordingClient();
    await applyStatus(client, resources.namespaces, { metadata: { name: "team-a" }, status: { phase: "Active" } }, { fieldManager: "m" });
    expect(sent.map((request) => [request.path, request.contentType])).toEqual([["/api/v1/namespaces/team-a/status?fieldManager=m", applyPatch]]);
  });

  test("mistakes are refused before anything is sent, each in one line naming the value and what was expected", async () => {
    const { client, sent } = await recordingClient();
    const cm = { metadata: { name: "cm", namespace: "ns" } };
    await expect(apply(client, resources.configMaps, { metadata: { name: "cm" } }, { fieldManager: "m" })).rejects.toThrow(
      "apply ConfigMap cm: metadata.namespace is empty; expected the namespace of this namespaced resource",
    );
    await expect(apply(client, resources.namespaces, { metadata: { name: "a", namespace: "b" } }, { fieldManager: "m" })).rejects.toThrow(
      'apply Namespace b/a: metadata.namespace is "b"; expected none, Namespace is cluster-scoped',
    );
    await expect(apply(client, resources.configMaps, cm, { fieldManager: "" })).rejects.toThrow(
      "apply ConfigMap ns/cm: fieldManager is empty; expected the name the applied fields are recorded under",
    );
    await expect(apply(client, resources.configMaps, { ...cm, kind: "Secret" }, { fieldManager: "m" })).rejects.toThrow(
      "apply ConfigMap ns/cm: the configuration says v1 Secret; expected v1 ConfigMap",
    );
    expect(sent).toEqual([]);
  });
});
