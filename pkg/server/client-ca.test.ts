import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadClientCa } from "./client-ca.ts";
import { generateSelfSignedCertificate } from "./self-signed-certificate.ts";

const dir = mkdtempSync(join(tmpdir(), "client-ca-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("--client-ca-file: read as it is; unreadable or certificate-less files are one line naming the flag", () => {
  const bundle = generateSelfSignedCertificate({ host: "ca", alternateIps: [], alternateDnsNames: [] }).certPem;
  const good = join(dir, "ca.crt");
  writeFileSync(good, bundle);
  expect(loadClientCa(good).initial).toBe(bundle);
  expect(() => loadClientCa("/nonexistent/ca.crt")).toThrow("cannot read --client-ca-file /nonexistent/ca.crt: ENOENT");
  const empty = join(dir, "empty.crt");
  writeFileSync(empty, "nothing here");
  expect(() => loadClientCa(empty)).toThrow(`--client-ca-file ${empty} holds no PEM certificate`);
});
