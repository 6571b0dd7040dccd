import { expect, test } from "bun:test";
import { boolFlag, durationFlag, intFlag, stringListFlag } from "./flag-definition.ts";
import { renderHelp } from "./help-text.ts";

test("sections in first-appearance order, flags sorted and aligned as pflag aligns them", () => {
  const help = renderHelp({ name: "demo", description: "demo runs Kubernetes controllers in one process." }, [
    stringListFlag({ name: "things", group: "Generic", default: ["*"], help: "Things to do.\nAll things: a, b" }),
    boolFlag({ name: "fast", group: "Generic", default: false, help: "Go fast." }),
    intFlag({ name: "v", shorthand: "v", group: "Logs", default: 0, help: "verbosity" }),
    durationFlag({ name: "timeout", group: "Logs", default: 30_000, help: "How long." }),
  ]);
  expect(help).toStartWith("demo runs Kubernetes controllers in one process");
  expect(help).toEndWith(
    [
      "Usage:",
      "  demo [flags]",
      "",
      "Generic flags:",
      "",
      "      --fast             Go fast.",
      "      --things strings   Things to do.",
      "                         All things: a, b (default [*])",
      "",
      "Logs flags:",
      "",
      "      --timeout duration   How long. (default 30s)",
      "  -v, --v int              verbosity",
      "",
    ].join("\n"),
  );
});

test("deprecated flags are left out, as pflag hides them", () => {
  const help = renderHelp({ name: "demo", description: "Demo." }, [
    durationFlag({ name: "new-timeout", group: "Generic", default: 10_000, help: "How long." }),
    durationFlag({ name: "old-timeout", group: "Generic", default: 30_000, help: "How long.", deprecated: "use --new-timeout" }),
  ]);
  expect(help).toContain("--new-timeout duration");
  expect(help).not.toContain("old-timeout");
});
