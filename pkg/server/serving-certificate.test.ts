import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SecureServingOptions } from "../options/serving-options.ts";
import { generateSelfSignedCertificate } from "./self-signed-certificate.ts";
import { loadServingCertificate, type ServingKeyPair } from "./serving-certificate.ts";
import { ServingError } from "./serving-error.ts";

const dir = mkdtempSync(join(tmpdir(), "serving-certificate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: SecureServingOptions = {
  bindAddress: "0.0.0.0",
  port: 10257,
  certKeyFiles: undefined,
  certDir: undefined,
  cipherSuites: [],
  curvePreferences: [],
  minTlsVersion: undefined,
};
const one = generateSelfSignedCertificate({ host: "one", alternateIps: [], alternateDnsNames: [] });
const two = generateSelfSignedCertificate({ host: "two", alternateIps: [], alternateDnsNames: [] });

function files(name: string, certPem: string, keyPem: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  writeFileSync(certFile, certPem);
  writeFileSync(keyFile, keyPem);
  return { certFile, keyFile };
}

function loadError(options: Partial<SecureServingOptions>): string {
  try {
    loadServingCertificate({ ...base, ...options }, "kube-loom");
  } catch (err) {
    expect(err).toBeInstanceOf(ServingError);
    return (err as Error).message;
  }
  throw new Error("expected a ServingError");
}

describe("serving certificate files", () => {
  test("read as given", () => {
    const certKeyFiles = files("good", one.certPem, one.keyPem);
    expect(loadServingCertificate({ ...base, certKeyFiles }, "kube-loom").initial).toEqual(one);
  });

  test("an unreadable file is named with the flag", () => {
    const { keyFile } = files("lonely", one.certPem, one.keyPem);
    expect(loadError({ certKeyFiles: { certFile: "/nonexistent/tls.crt", keyFile } })).toStartWith(
      "cannot read --tls-cert-file /nonexistent/tls.crt: ENOENT",
    );
  });

  test("a key of another certificate, or no PEM at all, is refused naming the file", () => {
    const mismatched = files("mismatched", one.certPem, two.keyPem);
    expect(loadError({ certKeyFiles: mismatched })).toBe(
      `--tls-private-key-file ${mismatched.keyFile} does not match --tls-cert-file ${mismatched.certFile}: it is the key of another certificate`,
    );
    const garbage = files("garbage", "not a certificate", one.keyPem);
    expect(loadError({ certKeyFiles: garbage })).toBe(`--tls-cert-file ${garbage.certFile} holds no PEM certificate`);
    const noKey = files("no-key", one.certPem, "");
    expect(loadError({ certKeyFiles: noKey })).toBe(`--tls-private-key-file ${noKey.keyFile} holds no PEM private key`);
  });

  test("changes are followed; a broken pair on disk is reported and not used", async () => {
    const certKeyFiles = files("rotating", one.certPem, one.keyPem);
    const certificate = loadServingCertificate({ ...base, certKeyFiles }, "kube-loom");
    const seen: ServingKeyPair[] = [];
    const errors: string[] = [];
    const watch = certificate.watch(
      (pair) => seen.push(pair),
      (err) => errors.push((err as Error).message),
      100,
    );
    try {
      writeFileSync(certKeyFiles.certFile, two.certPem); // key not yet replaced: a mismatch
      await waitFor(() => errors.length > 0);
      expect(errors[0]).toContain("does not match");
      writeFileSync(certKeyFiles.keyFile, two.keyPem);
      await waitFor(() => seen.length > 0);
      expect(seen).toEqual([two]);
    } finally {
      watch?.stop();
    }
  }, 30_000);
});

describe("--cert-dir", () => {
  test("a generated pair is written (key private), named after the program, and reused on the next start", () => {
    const certDir = join(dir, "generated");
    const first = loadServingCertificate({ ...base, certDir }, "my-manager").initial;
    expect(readFileSync(join(certDir, "my-manager.crt"), "utf8")).toBe(first.certPem);
    expect(statSync(join(certDir, "my-manager.key")).mode & 0o777).toBe(0o600);
    expect(loadServingCertificate({ ...base, certDir }, "my-manager").initial).toEqual(first);
    expect(loadServingCertificate({ ...base, certDir }, "kube-loom").initial).not.toEqual(first);
  });

  test("a folder that cannot be written is one line naming it", () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "");
    expect(loadError({ certDir: join(blocker, "certs") })).toStartWith(`cannot write the self-signed certificate into --cert-dir ${join(blocker, "certs")}:`);
  });

  test("without --cert-dir the pair lives in memory", () => {
    const certificate = loadServingCertificate(base, "kube-loom");
    expect(certificate.origin).toBe("self-signed, in memory");
    expect(certificate.initial.certPem).toContain("BEGIN CERTIFICATE");
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(100);
  }
}
