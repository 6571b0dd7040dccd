import { describe, expect, test } from "bun:test";
import { deferredNetworkProvider } from "./deferred-provider.ts";
import { MemoryNetworkProvider } from "./memory-provider.ts";

class SettingsProblem extends Error {}

describe("deferredNetworkProvider", () => {
  const signal = new AbortController().signal;

  test("builds on first use, keeps what it built, and builds again after a failed build or a settings error", async () => {
    let builds = 0;
    let secretExists = false;
    const memory = new MemoryNetworkProvider();
    const provider = deferredNetworkProvider({
      kind: "memory",
      build: async () => {
        builds++;
        if (!secretExists) throw new SettingsProblem("Secret kube-system/x not found");
        return memory;
      },
      needsRebuild: (err) => err instanceof SettingsProblem,
    });
    expect(builds).toBe(0);
    await expect(provider.findNetwork("u", signal)).rejects.toThrow("Secret kube-system/x not found");
    secretExists = true;
    expect(await provider.findNetwork("u", signal)).toBeUndefined();
    await provider.createNetwork("u", "n", signal);
    expect(builds).toBe(2);
    // An ordinary provider error keeps the built provider.
    await expect(provider.renameNetwork("missing", "x", signal)).rejects.toThrow("not found");
    await provider.findNetwork("u", signal);
    expect(builds).toBe(2);
  });
});
