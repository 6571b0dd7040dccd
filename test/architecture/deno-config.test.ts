// deno.json describes the same package as package.json: a JSR or Deno user sees the version npm users see.
import { expect, test } from "bun:test";
import denoConfig from "../../deno.json" with { type: "json" };
import packageJson from "../../package.json" with { type: "json" };

test("deno.json's version is package.json's", () => {
  expect(denoConfig.version).toBe(packageJson.version);
});
