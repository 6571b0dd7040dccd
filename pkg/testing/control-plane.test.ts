// What ControlPlane.start refuses before it starts anything.
import { afterEach, describe, expect, test } from "bun:test";
import { ControlPlane } from "./control-plane.ts";

const saved = { ...process.env };
afterEach(() => {
  for (const name of ["KUBEBUILDER_ASSETS", "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT", "TEST_ASSET_ETCD", "TEST_ASSET_KUBE_APISERVER"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("ControlPlane.start", () => {
  test("without binaries where envtest looks: one line saying where to point KUBEBUILDER_ASSETS", async () => {
    process.env.KUBEBUILDER_ASSETS = "/nonexistent/assets";
    delete process.env.TEST_ASSET_ETCD;
    await expect(ControlPlane.start()).rejects.toThrow("/nonexistent/assets/etcd does not exist (from KUBEBUILDER_ASSETS)");
  });

  test("a start timeout that is no duration names the variable and what is expected", async () => {
    process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT = "soon";
    await expect(ControlPlane.start({ binaries: { etcd: "/bin/true", kubeApiserver: "/bin/true" } })).rejects.toThrow(
      "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=soon: expected a positive duration such as 90s or 2m",
    );
  });
});
