// `resources` against a real API server: each built-in resource the library names is served under
// that group, version and plural, with that kind and scope, and lists as the object type says.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "./informer-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
}, 120_000);

afterAll(async () => {
  await controlPlane?.stop();
});

test("every entry of resources is served as it says: group, version, plural, kind and scope", async () => {
  const served = [];
  for (const type of Object.values(resources)) {
    const groupVersion = type.group ? `${type.group}/${type.version}` : type.version;
    const found = (await client.discovery.serverResourcesForGroupVersion(groupVersion)).find((resource) => resource.resource === type.resource);
    served.push({ resource: type.resource, kind: found?.kind, namespaced: found?.namespaced });
  }
  expect(served).toEqual(Object.values(resources).map(({ resource, kind, namespaced }) => ({ resource, kind, namespaced })));
});

test("a new entry lists as any other: Jobs in the default namespace", async () => {
  const jobs = client.dynamic.resource(resources.jobs, "default");
  await jobs.create({ metadata: { name: "once" }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "registry.invalid/c:1" }] } } } });
  const [job] = (await jobs.list()).items;
  expect(job?.spec?.template.spec?.restartPolicy).toBe("Never");
});
