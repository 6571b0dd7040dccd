import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { versionInfoMetric } from "./version-info.ts";

test("version_info as kube-controller-manager 1.37 serves it: a gauge of 1 labelled component, binary, emulation and min_compat (one minor below)", async () => {
  const registry = new Registry();
  versionInfoMetric(registry, { component: "kube-loom", binary: "0.1.0", emulation: "1.37" });
  const text = await registry.metrics();
  expect(text).toContain("# TYPE version_info gauge\n");
  expect(text).toContain('version_info{component="kube-loom",binary="0.1.0",emulation="1.37",min_compat="1.36"} 1\n');
});

test("min_compat never goes below x.0", async () => {
  const registry = new Registry();
  versionInfoMetric(registry, { component: "c", binary: "2.0.1", emulation: "2.0" });
  expect(await registry.metrics()).toContain('min_compat="2.0"');
});
