// --tls-min-version and --tls-cipher-suites take Go's names (those kube-controller-manager
// accepts); the runtimes' TLS servers take OpenSSL's. This table translates one into the other.

export const tlsVersions = {
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
} as const;

export type TlsVersionName = keyof typeof tlsVersions;

export function isTlsVersionName(name: string): name is TlsVersionName {
  return Object.hasOwn(tlsVersions, name);
}

// TLS 1.3 suites are not configurable (in Go as in OpenSSL): accepted, and they leave TLS 1.2 and older without suites.
const TLS13 = "tls1.3";

/** The suites Go recommends, by IANA name, with the OpenSSL name for TLS 1.2 and older. */
const preferredSuites: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: TLS13,
  TLS_AES_256_GCM_SHA384: TLS13,
  TLS_CHACHA20_POLY1305_SHA256: TLS13,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
};

/** Suites Go still accepts but calls insecure; a runtime built without one simply never negotiates it. */
const insecureSuites: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: "ECDHE-ECDSA-RC4-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: "ECDHE-RSA-RC4-SHA",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_RC4_128_SHA: "RC4-SHA",
};

export const preferredCipherSuiteNames: readonly string[] = Object.keys(preferredSuites);
export const insecureCipherSuiteNames: readonly string[] = Object.keys(insecureSuites);

export function isCipherSuiteName(name: string): boolean {
  return Object.hasOwn(preferredSuites, name) || Object.hasOwn(insecureSuites, name);
}

/**
 * The OpenSSL cipher list for TLS 1.2 and older, or undefined when the names allow none of them
 * (only TLS 1.3 suites were named, so only TLS 1.3 may be negotiated).
 */
export function openSslCipherList(names: readonly string[]): string | undefined {
  const openSslNames = names.map((name) => preferredSuites[name] ?? insecureSuites[name]).filter((name) => name !== undefined && name !== TLS13);
  return openSslNames.length ? [...new Set(openSslNames)].join(":") : undefined;
}
