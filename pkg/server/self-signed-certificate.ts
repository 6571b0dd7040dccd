// The serving certificate kube-loom makes for itself when it is given none, built the way
// client-go's GenerateSelfSignedCertKey builds kube-controller-manager's: a throwaway CA
// ("<host>-ca@<unix time>") signs a server certificate ("<host>@<unix time>") for the host, the
// alternate IPs and names; both RSA 2048, valid from an hour ago (clock skew) for a year. The
// certificate file holds the server certificate followed by the CA, so a client can pin the CA.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import {
  bitString,
  booleanTrue,
  type Der,
  explicit,
  implicitPrimitive,
  namedBits,
  nullValue,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  toPem,
  unsignedInteger,
  utf8String,
} from "./der.ts";

export interface SelfSignedRequest {
  /** The certificate's main name, e.g. "localhost"; an IP address goes into the IP SANs instead. */
  host: string;
  alternateIps: readonly string[];
  alternateDnsNames: readonly string[];
  now?: Date;
}

export interface GeneratedKeyPair {
  /** PEM: the server certificate, then the CA that signed it. */
  certPem: string;
  /** PEM (PKCS#1) private key of the server certificate. */
  keyPem: string;
}

const HOUR_MS = 3_600_000;
const VALIDITY_MS = 365 * 24 * HOUR_MS;

const OID = {
  commonName: "2.5.4.3",
  sha256WithRsa: "1.2.840.113549.1.1.11",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extendedKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
} as const;

// KeyUsage bit numbers (RFC 5280 4.2.1.3).
const DIGITAL_SIGNATURE = 0;
const KEY_ENCIPHERMENT = 2;
const KEY_CERT_SIGN = 5;

export function generateSelfSignedCertificate(request: SelfSignedRequest): GeneratedKeyPair {
  const now = request.now ?? new Date();
  const unixSeconds = Math.floor(now.getTime() / 1000);
  const notBefore = new Date(now.getTime() - HOUR_MS);
  const notAfter = new Date(notBefore.getTime() + VALIDITY_MS);

  const caKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const caName = name(`${request.host}-ca@${unixSeconds}`);
  const caKeyId = keyIdentifier(caKeys.publicKey);
  const caCertificate = signCertificate(caKeys.privateKey, {
    serial: randomSerial(),
    issuer: caName,
    subject: caName,
    notBefore,
    notAfter,
    publicKey: caKeys.publicKey,
    extensions: [
      extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE, KEY_ENCIPHERMENT, KEY_CERT_SIGN])),
      extension(OID.basicConstraints, true, sequence(booleanTrue())),
      extension(OID.subjectKeyIdentifier, false, octetString(caKeyId)),
    ],
  });

  const serverKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const { ips, dnsNames } = subjectAlternativeNames(request);
  const serverCertificate = signCertificate(caKeys.privateKey, {
    serial: randomSerial(),
    issuer: caName,
    subject: name(`${request.host}@${unixSeconds}`),
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    extensions: [
      extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE, KEY_ENCIPHERMENT])),
      extension(OID.extendedKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))),
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, caKeyId))),
      extension(
        OID.subjectAltName,
        false,
        sequence(...dnsNames.map((dns) => implicitPrimitive(2, new TextEncoder().encode(dns))), ...ips.map((ip) => implicitPrimitive(7, ipBytes(ip)))),
      ),
    ],
  });

  return {
    certPem: toPem("CERTIFICATE", serverCertificate) + toPem("CERTIFICATE", caCertificate),
    keyPem: serverKeys.privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
  };
}

interface CertificateFields {
  serial: Der;
  issuer: Der;
  subject: Der;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  extensions: Der[];
}

function signCertificate(signer: KeyObject, fields: CertificateFields): Der {
  const algorithm = sequence(objectIdentifier(OID.sha256WithRsa), nullValue());
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3: Deno refuses v1 certificates
    unsignedInteger(fields.serial),
    algorithm,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.publicKey.export({ type: "spki", format: "der" }),
    explicit(3, sequence(...fields.extensions)),
  );
  return sequence(tbs, algorithm, bitString(sign("sha256", tbs, signer)));
}

function name(commonName: string): Der {
  return sequence(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));
}

function extension(oid: string, critical: boolean, value: Der): Der {
  return critical
    ? sequence(objectIdentifier(oid), booleanTrue(), octetString(value))
    : sequence(objectIdentifier(oid), octetString(value));
}

// RFC 5280 allows any unique value; a hash of the whole public key info is one.
function keyIdentifier(publicKey: KeyObject): Der {
  return createHash("sha1").update(publicKey.export({ type: "spki", format: "der" })).digest();
}

// Positive 128-bit serials: unique without a serial file.
function randomSerial(): Der {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes;
}

function subjectAlternativeNames(request: SelfSignedRequest): { ips: string[]; dnsNames: string[] } {
  const hostIsIp = isIPv4(request.host) || isIPv6(request.host);
  const ips = [...(hostIsIp ? [request.host] : []), ...request.alternateIps];
  const dnsNames = [...(hostIsIp ? [] : [request.host]), ...request.alternateDnsNames];
  return { ips: [...new Set(ips)], dnsNames: [...new Set(dnsNames)] };
}

/** The 4 or 16 bytes of an IPv4 or IPv6 address (an IPv6 address may end in dotted IPv4). */
export function ipBytes(ip: string): Uint8Array {
  if (isIPv4(ip)) return Uint8Array.from(ip.split(".").map(Number));
  if (!isIPv6(ip)) throw new Error(`not an IP address: ${ip}`);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  const hexPart = dotted ? ip.slice(0, -dotted.length).replace(/:$/, ":0:0") : ip;
  const [head = "", tail] = hexPart.split("::");
  const groups = (text: string) => (text === "" ? [] : text.split(":").map((group) => parseInt(group, 16)));
  const headGroups = groups(head);
  const tailGroups = tail === undefined ? [] : groups(tail);
  const zeros = new Array<number>(8 - headGroups.length - tailGroups.length).fill(0);
  const all = tail === undefined ? headGroups : [...headGroups, ...zeros, ...tailGroups];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  if (dotted) bytes.set(ip.slice(-dotted.length).split(".").map(Number), 12);
  return bytes;
}
