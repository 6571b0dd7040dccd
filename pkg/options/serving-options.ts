// The serving and delegated-auth settings read out of the parsed flags, with the checks
// kube-controller-manager makes on them (a certificate without its key, an unknown cipher suite,
// curve or TLS version, a `*` anywhere but at the end of an always-allowed path) as usage errors,
// and a curve the runtime cannot offer as one too.
import { curvePreferencesProblem } from "../tls/tls-curves.ts";
import { isCipherSuiteName, isTlsVersionName, tlsVersions, type TlsVersionName } from "../tls/tls-parameters.ts";
import {
  alwaysAllowPathsFlag,
  authorizedTtlFlag,
  clientCaFileFlag,
  skipLookupFlag,
  tokenCacheTtlFlag,
  type DelegatedAuthKubeconfigFlags,
  unauthorizedTtlFlag,
} from "./delegated-auth-flags.ts";
import type { FlagValues } from "./flag-values.ts";
import {
  addressFlag,
  bindAddressFlag,
  certDirFlag,
  portFlag,
  securePortFlag,
  tlsCertFileFlag,
  tlsCipherSuitesFlag,
  tlsCurvePreferencesFlag,
  tlsMinVersionFlag,
  tlsPrivateKeyFileFlag,
} from "./serving-flags.ts";
import { UsageError } from "./usage-error.ts";

export interface SecureServingOptions {
  bindAddress: string;
  /** 0 means no HTTPS. */
  port: number;
  /** Both or neither: the certificate (plus chain) and key files to serve. */
  certKeyFiles: { certFile: string; keyFile: string } | undefined;
  /** Where a generated pair is kept; undefined = in memory only. */
  certDir: string | undefined;
  /** IANA names; empty = the runtime's defaults. */
  cipherSuites: readonly string[];
  /** Go CurveIDs; empty = the runtime's defaults. */
  curvePreferences: readonly number[];
  minTlsVersion: TlsVersionName | undefined;
}

export interface InsecureServingOptions {
  address: string;
  /** 0 means no plain HTTP. */
  port: number;
}

export interface DelegatedAuthenticationOptions {
  /** undefined = the process's own connection. */
  kubeconfig: string | undefined;
  tokenCacheTtlMs: number;
  clientCaFile: string | undefined;
  /** Without clientCaFile: do not use the client CA the API server publishes. */
  skipLookup: boolean;
}

export interface DelegatedAuthorizationOptions {
  /** undefined = the process's own connection. */
  kubeconfig: string | undefined;
  alwaysAllowPaths: readonly string[];
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export interface ServingOptions {
  secure: SecureServingOptions;
  insecure: InsecureServingOptions;
  authentication: DelegatedAuthenticationOptions;
  authorization: DelegatedAuthorizationOptions;
}

/** `kubeconfigs`: the program's own delegated-auth kubeconfig flags, the ones `values` was parsed with. */
export function readServingOptions(values: FlagValues, kubeconfigs: DelegatedAuthKubeconfigFlags): ServingOptions {
  return {
    secure: readSecureServing(values),
    insecure: { address: values.get(addressFlag), port: values.get(portFlag) },
    authentication: {
      kubeconfig: unlessEmpty(values.get(kubeconfigs.authentication)),
      tokenCacheTtlMs: values.get(tokenCacheTtlFlag),
      clientCaFile: unlessEmpty(values.get(clientCaFileFlag)),
      skipLookup: values.get(skipLookupFlag),
    },
    authorization: {
      kubeconfig: unlessEmpty(values.get(kubeconfigs.authorization)),
      alwaysAllowPaths: checkedAlwaysAllowPaths(values.get(alwaysAllowPathsFlag)),
      authorizedTtlMs: values.get(authorizedTtlFlag),
      unauthorizedTtlMs: values.get(unauthorizedTtlFlag),
    },
  };
}

function readSecureServing(values: FlagValues): SecureServingOptions {
  const certFile = unlessEmpty(values.get(tlsCertFileFlag));
  const keyFile = unlessEmpty(values.get(tlsPrivateKeyFileFlag));
  if ((certFile === undefined) !== (keyFile === undefined)) {
    const given = certFile === undefined ? "--tls-private-key-file" : "--tls-cert-file";
    throw new UsageError(`${given} needs its partner: give both --tls-cert-file and --tls-private-key-file, or neither for a self-signed certificate`);
  }
  const cipherSuites = values.get(tlsCipherSuitesFlag);
  const unknown = cipherSuites.filter((name) => !isCipherSuiteName(name));
  if (unknown.length) {
    throw new UsageError(`unknown cipher suite ${unknown.map((name) => JSON.stringify(name)).join(", ")} in --tls-cipher-suites (see --help for the names)`);
  }
  const curvePreferences = values.get(tlsCurvePreferencesFlag);
  const curveProblem = curvePreferencesProblem(curvePreferences);
  if (curveProblem) throw new UsageError(`cannot use --tls-curve-preferences=${curvePreferences.join(",")}: ${curveProblem}`);
  const minVersion = values.get(tlsMinVersionFlag);
  if (minVersion !== "" && !isTlsVersionName(minVersion)) {
    throw new UsageError(`invalid value ${JSON.stringify(minVersion)} for --tls-min-version: expected one of: ${Object.keys(tlsVersions).join(", ")}`);
  }
  return {
    bindAddress: values.get(bindAddressFlag),
    port: values.get(securePortFlag),
    certKeyFiles: certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined,
    certDir: unlessEmpty(values.get(certDirFlag)),
    cipherSuites,
    curvePreferences,
    minTlsVersion: minVersion === "" ? undefined : minVersion,
  };
}

function checkedAlwaysAllowPaths(paths: readonly string[]): readonly string[] {
  for (const path of paths) {
    if (path.slice(0, -1).includes("*")) {
      throw new UsageError(`invalid path ${JSON.stringify(path)} in --authorization-always-allow-paths: only a trailing * is allowed`);
    }
  }
  return paths;
}

/** Go leaves unset string flags empty; here "not given" is undefined. */
export function unlessEmpty(text: string): string | undefined {
  return text === "" ? undefined : text;
}
