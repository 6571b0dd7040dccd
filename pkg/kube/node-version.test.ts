import { afterEach, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { minimumNodeVersion, requireSupportedNode, UnsupportedNodeError } from "./node-version.ts";
import { createFetch } from "./transport.ts";

describe("requireSupportedNode", () => {
  test("an older Node is one line naming the version that runs and the one needed", () => {
    for (const old of ["v20.20.2", "v22.18.9", "v18.0.0"]) {
      expect(() => requireSupportedNode(old)).toThrow(UnsupportedNodeError);
      expect(() => requireSupportedNode(old)).toThrow(`Node.js ${old} is too old for kube-loom: it needs Node.js ${minimumNodeVersion} or newer`);
    }
  });

  test("the minimum and anything newer pass", () => {
    for (const version of ["v22.19.0", "v22.23.3", "v24.21.0", "v100.0.0"]) expect(() => requireSupportedNode(version)).not.toThrow();
  });

  test("package.json's engines field says the same minimum", () => {
    expect(pkg.engines.node).toBe(`>=${minimumNodeVersion}`);
  });
});

describe("the Node transport on an old Node", () => {
  const realVersion = process.version;
  afterEach(() => Object.defineProperty(process, "version", { value: realVersion }));

  test("refuses with the one-line error instead of loading undici, which fails there with an internal TypeError", async () => {
    Object.defineProperty(process, "version", { value: "v20.20.2" });
    await expect(createFetch({}, "node")).rejects.toThrow(UnsupportedNodeError);
  });
});
