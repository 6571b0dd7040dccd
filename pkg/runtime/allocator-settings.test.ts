import { describe, expect, test } from "bun:test";
import { allocatorReexec, allocatorSettings, type ProcessFacts } from "./allocator-settings.ts";

const compiled: ProcessFacts = {
  env: { HOME: "/root", UNSET: undefined },
  argv: ["bun", "/$bunfs/root/kube-loom", "--kubeconfig=/etc/kubeconfig", "--controllers=*"],
  execPath: "/usr/local/bin/kube-loom",
  bunVersion: "1.4.5",
};

describe("allocatorReexec", () => {
  test("a compiled executable without the settings runs itself again with the same arguments and the settings added", () => {
    expect(allocatorReexec(compiled)).toEqual({
      path: "/usr/local/bin/kube-loom",
      args: ["/usr/local/bin/kube-loom", "--kubeconfig=/etc/kubeconfig", "--controllers=*"],
      env: { HOME: "/root", ...allocatorSettings },
    });
  });

  test("once the settings are in the environment, nothing: the re-executed process does not loop", () => {
    const reexec = allocatorReexec(compiled);
    expect(reexec).toBeDefined();
    expect(allocatorReexec({ ...compiled, env: reexec?.env ?? {} })).toBeUndefined();
  });

  test("an operator's own value is kept, not overwritten", () => {
    expect(allocatorReexec({ ...compiled, env: { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "100" } })).toBeUndefined();
  });

  test("a script run by bun, and Node or Deno, are left alone", () => {
    expect(allocatorReexec({ ...compiled, argv: ["/usr/bin/bun", "/src/cmd/kube-loom/main.ts"] })).toBeUndefined();
    expect(allocatorReexec({ ...compiled, bunVersion: undefined })).toBeUndefined();
  });
});
