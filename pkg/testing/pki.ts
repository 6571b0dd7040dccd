// Throwaway PKI for the test control plane, made with the openssl command (it must be on PATH).
// Every key is ECDSA P-256 in PKCS#8 and every certificate is X.509 v3
// (Deno's TLS stack rejects v1 client certificates).
import { Buffer } from "node:buffer";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureOutput } from "./capture-output.ts";

/** A certificate authority made for one control plane. */
export interface CertificateAuthority {
  /** Folder the CA's files live in; certificates it issues are written there too. */
  dir: string;
  /** Its certificate, PEM. */
  certFile: string;
  /** Its private key, PEM. */
  keyFile: string;
  /** The contents of `certFile`. */
  certPem: string;
}

/** A certificate with its key, as files and as PEM text. */
export interface IssuedCertificate {
  /** The certificate's file. */
  certFile: string;
  /** The private key's file. */
  keyFile: string;
  /** The certificate, PEM. */
  certPem: string;
  /** The private key, PEM. */
  keyPem: string;
}

/** Who a client certificate says its holder is. */
export interface ClientIdentity {
  /** Becomes the certificate's CN, i.e. the Kubernetes user name. */
  user: string;
  /** Become the certificate's O entries, i.e. the Kubernetes groups. */
  groups?: string[];
}

/** The certificates and keys of one control plane. */
export interface Pki {
  /** Where their files are. */
  dir: string;
  /** Signs the serving and client certificates; the API server trusts the client certificates it signs. */
  ca: CertificateAuthority;
  /** kube-apiserver's serving certificate, for 127.0.0.1 and localhost. */
  apiserverServing: IssuedCertificate;
  /** CN=admin, O=system:masters. */
  admin: IssuedCertificate;
  /** Signs ServiceAccount tokens. */
  serviceAccountPrivateKeyFile: string;
  /** Verifies ServiceAccount tokens. */
  serviceAccountPublicKeyFile: string;
  /** Unrelated to `ca`: anything it signs must be rejected by the apiserver. */
  otherCa: CertificateAuthority;
}

const VALIDITY_DAYS = 365;

export async function createPki(dir: string): Promise<Pki> {
  mkdirSync(dir, { recursive: true });
  const ca = await createCertificateAuthority(join(dir, "ca"), "kube-loom-test-ca");
  const otherCa = await createCertificateAuthority(join(dir, "other-ca"), "kube-loom-unrelated-ca");
  const apiserverServing = await issueCertificate(ca, "apiserver", "/O=kube-loom/CN=localhost", [
    "extendedKeyUsage = serverAuth",
    "subjectAltName = DNS:localhost,IP:127.0.0.1",
  ]);
  const admin = await issueClientCertificateAs(ca, { user: "admin", groups: ["system:masters"] }, "admin");
  const serviceAccountPrivateKeyFile = join(dir, "service-account.key");
  const serviceAccountPublicKeyFile = join(dir, "service-account.pub");
  await generatePrivateKey(serviceAccountPrivateKeyFile);
  await openssl(["pkey", "-in", serviceAccountPrivateKeyFile, "-pubout", "-out", serviceAccountPublicKeyFile]);
  return { dir, ca, apiserverServing, admin, serviceAccountPrivateKeyFile, serviceAccountPublicKeyFile, otherCa };
}

export async function createCertificateAuthority(dir: string, commonName: string): Promise<CertificateAuthority> {
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, "ca.key");
  const certFile = join(dir, "ca.crt");
  const configFile = join(dir, "ca.cnf");
  // A config of our own so the CA extensions are exactly these, whatever the system openssl.cnf says.
  writeFileSync(
    configFile,
    [
      "[req]",
      "distinguished_name = dn",
      "x509_extensions = v3_ca",
      "[dn]",
      "[v3_ca]",
      "basicConstraints = critical,CA:TRUE",
      "keyUsage = critical,keyCertSign,cRLSign,digitalSignature",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid:always",
      "",
    ].join("\n"),
  );
  await generatePrivateKey(keyFile);
  await openssl([
    "req", "-x509", "-new", "-config", configFile, "-key", keyFile,
    "-subj", `/O=kube-loom/CN=${escapeSubjectValue(commonName)}`,
    "-days", String(VALIDITY_DAYS), "-sha256", "-out", certFile,
  ]);
  return { dir, certFile, keyFile, certPem: readFileSync(certFile, "utf8") };
}

/** Issues a client certificate that authenticates as `user` in `groups` against an apiserver trusting `ca`. */
export function issueClientCertificate(ca: CertificateAuthority, identity: ClientIdentity): Promise<IssuedCertificate> {
  // A random suffix so issuing the same user twice never overwrites files a test still uses.
  const fileStem = `client-${identity.user.replace(/[^A-Za-z0-9_.-]/g, "_")}-${crypto.randomUUID().slice(0, 8)}`;
  return issueClientCertificateAs(ca, identity, fileStem);
}

function issueClientCertificateAs(ca: CertificateAuthority, identity: ClientIdentity, fileStem: string): Promise<IssuedCertificate> {
  const subject = [...(identity.groups ?? []).map((group) => `O=${escapeSubjectValue(group)}`), `CN=${escapeSubjectValue(identity.user)}`];
  return issueCertificate(ca, fileStem, `/${subject.join("/")}`, ["extendedKeyUsage = clientAuth"]);
}

async function issueCertificate(
  ca: CertificateAuthority,
  fileStem: string,
  subject: string,
  extraExtensions: string[],
): Promise<IssuedCertificate> {
  const keyFile = join(ca.dir, `${fileStem}.key`);
  const csrFile = join(ca.dir, `${fileStem}.csr`);
  const certFile = join(ca.dir, `${fileStem}.crt`);
  const extensionsFile = join(ca.dir, `${fileStem}.ext`);
  // Extensions make `openssl x509 -req` emit a v3 certificate.
  writeFileSync(
    extensionsFile,
    [
      "basicConstraints = critical,CA:FALSE",
      "keyUsage = critical,digitalSignature,keyEncipherment",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid,issuer",
      ...extraExtensions,
      "",
    ].join("\n"),
  );
  await generatePrivateKey(keyFile);
  await openssl(["req", "-new", "-key", keyFile, "-subj", subject, "-out", csrFile]);
  await openssl([
    "x509", "-req", "-in", csrFile, "-CA", ca.certFile, "-CAkey", ca.keyFile,
    // Random serials instead of a shared serial file, so concurrent issuing is safe.
    "-set_serial", `0x${randomHex(16)}`,
    "-days", String(VALIDITY_DAYS), "-sha256", "-extfile", extensionsFile, "-out", certFile,
  ]);
  return { certFile, keyFile, certPem: readFileSync(certFile, "utf8"), keyPem: readFileSync(keyFile, "utf8") };
}

function generatePrivateKey(keyFile: string): Promise<void> {
  return openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile]);
}

// In -subj, '/' separates RDNs and '+' joins multi-valued ones, so both need escaping inside values.
function escapeSubjectValue(value: string): string {
  return value.replace(/[\\/+]/g, (character) => `\\${character}`);
}

function randomHex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  random[0] = (random[0] ?? 0) & 0x7f; // keep the serial positive
  return Buffer.from(random).toString("hex");
}

async function openssl(args: string[]): Promise<void> {
  const { code, stdout, stderr } = await captureOutput(["openssl", ...args]);
  if (code !== 0) throw new Error(`openssl ${args.join(" ")} failed (exit ${code}):\n${stderr}${stdout}`);
}
