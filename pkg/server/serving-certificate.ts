// Which certificate HTTPS is served with, as kube-controller-manager chooses it: the given
// --tls-cert-file/--tls-private-key-file (followed on disk), else a self-signed pair kept in
// --cert-dir (reused when both files are readable, written otherwise), else a self-signed pair
// made in memory for localhost, 127.0.0.1 and the bind address.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SecureServingOptions } from "../options/serving-options.ts";
import { generateSelfSignedCertificate } from "./self-signed-certificate.ts";
import { ServingError } from "./serving-error.ts";
import type { Poll } from "./poll-for-changes.ts";
import { watchFiles } from "./watched-files.ts";
import { errorMessage } from "../errors/expected-error.ts";

export interface ServingKeyPair {
  certPem: string;
  keyPem: string;
}

export interface ServingCertificate {
  initial: ServingKeyPair;
  /** Where the pair comes from, for the log. */
  origin: string;
  /** Follows the files the pair was read from; a pair made in memory never changes. */
  watch(onChange: (pair: ServingKeyPair) => void, onError: (err: unknown) => void, intervalMs?: number): Poll | undefined;
}

/**
 * The serving certificate by `options`; a pair generated in --cert-dir is named after the program
 * (`<programName>.crt` and `.key`), as kube-controller-manager names its own after the component.
 */
export function loadServingCertificate(options: SecureServingOptions, programName: string): ServingCertificate {
  if (options.certKeyFiles) {
    const { certFile, keyFile } = options.certKeyFiles;
    return fromFiles({ certFile, keyFile, certName: `--tls-cert-file ${certFile}`, keyName: `--tls-private-key-file ${keyFile}` });
  }
  const request = selfSignedRequest(options.bindAddress);
  if (options.certDir === undefined) {
    return { initial: generateSelfSignedCertificate(request), origin: "self-signed, in memory", watch: () => undefined };
  }
  const certFile = join(options.certDir, `${programName}.crt`);
  const keyFile = join(options.certDir, `${programName}.key`);
  if (!readable(certFile) || !readable(keyFile)) {
    const pair = generateSelfSignedCertificate(request);
    try {
      mkdirSync(options.certDir, { recursive: true });
      writeFileSync(certFile, pair.certPem, { mode: 0o644 });
      writeFileSync(keyFile, pair.keyPem, { mode: 0o600 });
    } catch (err) {
      throw new ServingError(`cannot write the self-signed certificate into --cert-dir ${options.certDir}: ${errorMessage(err)}`, { cause: err });
    }
  }
  return fromFiles({ certFile, keyFile, certName: certFile, keyName: keyFile });
}

interface PairFiles {
  certFile: string;
  keyFile: string;
  /** How the files are named in messages, e.g. "--tls-cert-file /etc/tls.crt". */
  certName: string;
  keyName: string;
}

function fromFiles(files: PairFiles): ServingCertificate {
  const initial = { certPem: readPem(files.certFile, files.certName), keyPem: readPem(files.keyFile, files.keyName) };
  checkKeyPair(initial, files.certName, files.keyName);
  return {
    initial,
    origin: `${files.certFile} and ${files.keyFile}`,
    watch: (onChange, onError, intervalMs) =>
      watchFiles(
        [files.certFile, files.keyFile],
        [initial.certPem, initial.keyPem],
        ([certPem = "", keyPem = ""]) => {
          const pair = { certPem, keyPem };
          checkKeyPair(pair, files.certName, files.keyName);
          onChange(pair);
        },
        onError,
        intervalMs,
      ),
  };
}

// As kube-controller-manager's MaybeDefaultWithSelfSignedCerts("localhost", nil, [127.0.0.1]).
function selfSignedRequest(bindAddress: string) {
  const unspecified = bindAddress === "0.0.0.0" || bindAddress === "::";
  return {
    host: "localhost",
    alternateIps: ["127.0.0.1", ...(unspecified ? [] : [bindAddress])],
    alternateDnsNames: unspecified ? ["localhost"] : [],
  };
}

function readPem(path: string, name: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ServingError(`cannot read ${name}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Throws a ServingError naming the file at fault when the certificate or key is unusable or they do not belong together. */
function checkKeyPair(pair: ServingKeyPair, certName: string, keyName: string): void {
  if (!pair.certPem.includes("-----BEGIN CERTIFICATE-----")) throw new ServingError(`${certName} holds no PEM certificate`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pair.keyPem)) throw new ServingError(`${keyName} holds no PEM private key`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pair.certPem);
  } catch (err) {
    throw new ServingError(`${certName} is not a valid certificate: ${errorMessage(err)}`, { cause: err });
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pair.keyPem);
  } catch (err) {
    throw new ServingError(`${keyName} is not a usable private key: ${errorMessage(err)}`, { cause: err });
  }
  if (!certificate.checkPrivateKey(key)) throw new ServingError(`${keyName} does not match ${certName}: it is the key of another certificate`);
}

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

