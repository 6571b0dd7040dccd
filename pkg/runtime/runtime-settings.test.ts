import { describe, expect, test } from "bun:test";
import { runtimeReexec, runtimeSettings, type ProcessFacts } from "./runtime-settings.ts";

const compiled: ProcessFacts = {
  env: { HOME: "/root", UNSET: undefined },
  argv: ["bun", "/$bunfs/root/kube-loom", "--kubeconfig=/etc/kubeconfig", "--controllers=*"],
  execPath: "/usr/local/bin/kube-loom",
  bunVersion: "1.4.5",
};

describe("runtimeReexec", () => {
  test("a compiled executable without the settings runs itself again with the same arguments and the settings added", () => {
    expect(runtimeReexec(compiled)).toEqual({
      path: "/usr/local/bin/kube-loom",
      args: ["/usr/local/bin/kube-loom", "--kubeconfig=/etc/kubeconfig", "--controllers=*"],
      env: { HOME: "/root", ...runtimeSettings },
    });
  });

  test("once the settings are in the environment, nothing: the re-executed process does not loop", () => {
    const reexec = runtimeReexec(compiled);
    expect(reexec).toBeDefined();
    expect(runtimeReexec({ ...compiled, env: reexec?.env ?? {} })).toBeUndefined();
  });

  test("an operator's own value is kept, not overwritten; only the settings missing are added", () => {
    expect(runtimeReexec({ ...compiled, env: { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "100", BUN_IDLE_GC_SECONDS: "30,90,480" } })).toBeUndefined();
    expect(runtimeReexec({ ...compiled, env: { BUN_IDLE_GC_SECONDS: "30" } })?.env).toEqual({ ...runtimeSettings, BUN_IDLE_GC_SECONDS: "30" });
  });

  test("a script run by bun, and Node or Deno, are left alone", () => {
    expect(runtimeReexec({ ...compiled, argv: ["/usr/bin/bun", "/src/cmd/kube-loom/main.ts"] })).toBeUndefined();
    expect(runtimeReexec({ ...compiled, bunVersion: undefined })).toBeUndefined();
  });
});
