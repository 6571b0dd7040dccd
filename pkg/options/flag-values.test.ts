import { describe, expect, test } from "bun:test";
import { intFlag } from "./flag-definition.ts";
import { FlagValues } from "./flag-values.ts";

const workers = intFlag({ name: "concurrent-x-syncs", group: "x", default: 5, help: "Workers." });
const qps = intFlag({ name: "kube-api-qps", group: "core", default: 20, help: "QPS." });

describe("FlagValues", () => {
  test("only(): a controller's view keeps its own flags, with where they came from, and refuses the others", () => {
    const values = new FlagValues([workers, qps], [new Map([[workers, 7]])]);
    const own = values.only([workers]);
    expect(own.get(workers)).toBe(7);
    expect(own.isSet(workers)).toBe(true);
    expect(() => own.get(qps)).toThrow("flag --kube-api-qps was never registered: add it to its controller's flags");
    expect(values.only([qps]).isSet(qps)).toBe(false);
  });
});
