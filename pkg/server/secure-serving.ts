// Everything behind --secure-port put together: the serving certificate and client CA (followed
// on disk), the delegated authenticator and authorizer, and the TLS server in front of the
// endpoints. Operator mistakes (unreadable or mismatched files, a port in use) are ServingErrors.
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/logger.ts";
import type { ServingOptions } from "../options/serving-options.ts";
import { loadClientCa } from "./client-ca.ts";
import { followClusterClientCa } from "./cluster-client-ca.ts";
import { DelegatedAuthenticator } from "./delegated-authentication.ts";
import { DelegatedAuthorizer } from "./delegated-authorization.ts";
import { delegatedClient } from "./delegated-client.ts";
import { guardedHandler } from "./guarded-handler.ts";
import { serveTls } from "./secure-server.ts";
import type { FetchHandler, RunningServer } from "./serve.ts";
import { loadServingCertificate } from "./serving-certificate.ts";

export interface SecureServingSetup {
  options: ServingOptions;
  /** Names the self-signed pair kept in --cert-dir. */
  programName: string;
  endpoints: FetchHandler;
  client: KubeClient;
  logger: Logger;
}

export async function startSecureServing({ options, programName, endpoints, client, logger }: SecureServingSetup): Promise<RunningServer> {
  const { secure, authentication, authorization } = options;
  const certificate = loadServingCertificate(secure, programName);
  const clientCa = authentication.clientCaFile === undefined ? undefined : loadClientCa(authentication.clientCaFile);
  const lookUpClientCa = clientCa === undefined && !authentication.skipLookup;
  const authenticationClient = await delegatedClient(authentication.kubeconfig, client);
  const authenticator = new DelegatedAuthenticator(authenticationClient, authentication.tokenCacheTtlMs);
  const authorizer = new DelegatedAuthorizer(await delegatedClient(authorization.kubeconfig, client), authorization);

  let pair = certificate.initial;
  let caBundle = clientCa?.initial;
  const server = await serveTls(guardedHandler(endpoints, { authenticator, authorizer, logger }), secure.bindAddress, secure.port, {
    pair,
    clientCertificates: clientCa !== undefined || lookUpClientCa,
    clientCa: caBundle,
    minVersion: secure.minTlsVersion,
    cipherSuites: secure.cipherSuites,
    curvePreferences: secure.curvePreferences,
  });
  logger.info({ url: server.url, certificate: certificate.origin }, "serving HTTPS");

  const keepPrevious = (what: string) => (err: unknown) =>
    logger.error({ err }, `the ${what} changed on disk but cannot be used; new connections still get the previous one`);
  const useClientCa = (next: string | undefined) => {
    caBundle = next;
    server.update(pair, caBundle);
    logger.info({ clientCa: next === undefined ? "none" : "set" }, "client CA changed");
  };
  const watches = [
    certificate.watch((next) => {
      pair = next;
      server.update(pair, caBundle);
      logger.info({ certificate: certificate.origin }, "serving certificate reloaded");
    }, keepPrevious("serving certificate")),
    clientCa?.watch(useClientCa, keepPrevious("client CA")),
    lookUpClientCa
      ? followClusterClientCa(authenticationClient, useClientCa, (err) =>
          logger.warn({ err }, "cannot read the client CA the API server publishes; client certificates are checked against the last one read, if any"),
        )
      : undefined,
  ];
  return {
    url: server.url,
    port: server.port,
    stop: async () => {
      for (const watch of watches) watch?.stop();
      await server.stop();
    },
  };
}
