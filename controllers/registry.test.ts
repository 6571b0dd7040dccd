import { expect, test } from "bun:test";
import { maxWorkers } from "../pkg/controller/controller.ts";
import { parseCommandLine } from "../pkg/options/parse-command-line.ts";
import { builtinControllers } from "./registry.ts";

test("every built-in worker-count flag takes at most 10000: each worker is made when its controller starts", () => {
  const workerFlags = builtinControllers.flatMap((controller) => controller.flags).filter((flag) => /^concurrent-.*-syncs$/.test(flag.name));
  expect(workerFlags.map((flag) => flag.name).sort()).toEqual(["concurrent-gc-syncs", "concurrent-network-syncs", "concurrent-replicaset-syncs"]);
  const parse = (argv: string[]) => parseCommandLine(argv, { controllers: builtinControllers, program: { name: "kube-loom", version: "0.0.0" } });
  for (const { name } of workerFlags) {
    expect(parse([`--${name}=${maxWorkers}`]).kind).toBe("run");
    expect(parse([`--${name}=100000000`])).toEqual({
      kind: "exit",
      code: 2,
      stderr: `kube-loom: invalid value "100000000" for --${name}: expected an integer between 1 and 10000\n`,
    });
  }
});
