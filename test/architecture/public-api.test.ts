// The public API report: what "kube-loom" and "kube-loom/testing" declare is what the golden
// recorded, under package.json's version; a change needs the version and CHANGELOG entry that
// semver asks for, then `npm run api:report` to record it.
import { describe, expect, test } from "bun:test";
import * as kubeLoom from "../../mod.ts";
import type { KubeObject, Logger, RateLimiter, SetupContext } from "../../mod.ts";
import { type ApiReport, currentApiReport, packageVersion, readChangelog, readGolden, versionProblem } from "./public-api.ts";

const record = "run `npm run api:report` and commit test/architecture/golden/public-api.d.ts.txt";

describe("the public API report", () => {
  test("the declarations are the golden's, recorded for package.json's version with its CHANGELOG entry", async () => {
    const current = await currentApiReport();
    const golden = readGolden();
    expect(versionProblem(current, golden, readChangelog()) ?? "").toBe("");
    expect(current.surface === golden.surface ? "" : `the public API changed: ${record}`).toBe("");
    expect(golden.version === current.version ? "" : `the golden was made for ${golden.version}, package.json says ${current.version}: ${record}`).toBe("");
  }, 60_000);

  // Names users were left without once; removing one fails here (and tsc, for the types), not only in the golden.
  test("a controller's retry delays can be built from exported rate limiters; SetupContext's Logger type is exported", () => {
    const { BucketRateLimiter, defaultControllerRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } = kubeLoom;
    const backoff: RateLimiter = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(1000, 300_000), new BucketRateLimiter(10, 100));
    expect([backoff.when("a"), backoff.when("a")]).toEqual([1000, 2000]);
    expect(defaultControllerRateLimiter().when("a")).toBe(5);
    type SetupLogger = SetupContext<KubeObject>["logger"];
    const sameType: [Logger, SetupLogger] extends [SetupLogger, Logger] ? true : false = true;
    expect(sameType).toBe(true);
  });

  describe("the semver rule", () => {
    const version = packageVersion();
    const golden: ApiReport = { version, surface: "export declare const a: number;\n" };
    const changed: ApiReport = { version, surface: "export declare const a: string;\n" };
    const entry = (date: string) => `# Changelog\n\n## [${version}] - ${date}\n\n### Changed\n- a is a string\n`;

    test("a changed surface under a released version is refused, naming what to do", () => {
      expect(versionProblem(changed, golden, entry("2026-11-27"))).toContain("raise package.json's version");
    });

    test("a changed surface under a version not yet released is recorded", () => {
      expect(versionProblem(changed, golden, entry("Unreleased"))).toBeUndefined();
    });

    test("a new version with its entry is recorded; one without an entry is refused", () => {
      const raised = { ...changed, version: "9.0.0" };
      expect(versionProblem(raised, golden, "# Changelog\n\n## [9.0.0] - Unreleased\n")).toBeUndefined();
      expect(versionProblem(raised, golden, entry("2026-11-27"))).toContain("CHANGELOG.md has no");
    });
  });
});
