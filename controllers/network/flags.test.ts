import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseCommandLine } from "../../pkg/options/parse-command-line.ts";
import { networkControllerDescriptor } from "./descriptor.ts";
import { concurrentNetworkSyncsFlag, networkProviderFlag, networkResyncPeriodFlag, neutronAuthTypeFlag, neutronCredentialsSecretFlag } from "./flags.ts";

const parse = (argv: string[]) => parseCommandLine(argv, { controllers: [networkControllerDescriptor], program: { name: "kube-loom", version: "0.0.0" } });

describe("network controller flags", () => {
  test("defaults: memory provider, 5 workers, 5 minute resync", () => {
    const outcome = parse([]);
    if (outcome.kind !== "run") throw new Error("expected a run");
    expect(outcome.options.enabledControllers).toEqual(["network"]);
    expect(outcome.options.values.get(networkProviderFlag)).toBe("memory");
    expect(outcome.options.values.get(concurrentNetworkSyncsFlag)).toBe(5);
    expect(outcome.options.values.get(networkResyncPeriodFlag)).toBe(300_000);
  });

  test("the example config file in config/network is valid", () => {
    const outcome = parse(["--config", resolve(import.meta.dir, "../../config/network/kube-loom-neutron.yaml")]);
    if (outcome.kind !== "run") throw new Error(`expected a run, got ${outcome.stderr}`);
    expect(outcome.options.values.get(networkProviderFlag)).toBe("neutron");
    expect(outcome.options.values.get(neutronAuthTypeFlag)).toBe("v3applicationcredential");
    expect(outcome.options.values.get(neutronCredentialsSecretFlag)).toBe("kube-system/neutron-credentials");
  });

  test("a bad value is one line naming it", () => {
    expect(parse(["--concurrent-network-syncs=0"])).toMatchObject({ kind: "exit", code: 2, stderr: expect.stringContaining('"0" for --concurrent-network-syncs') });
    expect(parse(["--network-provider=aws"])).toMatchObject({ kind: "exit", code: 2, stderr: expect.stringContaining("one of: memory, neutron") });
  });
});
