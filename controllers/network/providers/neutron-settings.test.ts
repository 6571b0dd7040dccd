import { describe, expect, test } from "bun:test";
import { readCommandLineArguments } from "../../../pkg/options/command-line-arguments.ts";
import { FlagValues } from "../../../pkg/options/flag-values.ts";
import { networkControllerFlags } from "../flags.ts";
import { KeystoneAuthenticator, noAuthentication } from "./keystone-auth.ts";
import { credentialsSecret, neutronConnection, NeutronSettingsError, settingsFromFlags, withSecretData } from "./neutron-settings.ts";

const flags = (...args: string[]) => new FlagValues(networkControllerFlags, [readCommandLineArguments(args, networkControllerFlags)]);
const connect = (...args: string[]) => neutronConnection(settingsFromFlags(flags(...args)), flags(...args));
const secret = { namespace: "kube-system", name: "neutron" };

describe("Neutron settings", () => {
  test("noauth needs an endpoint and a project id", () => {
    const connection = connect("--neutron-auth-type=noauth", "--neutron-endpoint=http://127.0.0.1:9696", "--neutron-project-id=p1");
    expect(connection).toMatchObject({ endpoint: "http://127.0.0.1:9696", projectID: "p1", timeoutMs: 30_000 });
    expect(connection.auth).toBe(noAuthentication);
    expect(() => connect("--neutron-auth-type=noauth", "--neutron-endpoint=http://127.0.0.1:9696")).toThrow(
      "--neutron-project-id is required with --neutron-auth-type=noauth",
    );
    expect(() => connect("--neutron-auth-type=noauth", "--neutron-endpoint=127.0.0.1:9696", "--neutron-project-id=p1")).toThrow(
      '--neutron-endpoint="127.0.0.1:9696" is not an http(s) URL',
    );
  });

  test("password auth wants its password from the Secret, never a flag", () => {
    const args = ["--neutron-auth-url=https://keystone:5000/v3", "--neutron-username=u", "--neutron-project-name=infra"];
    expect(() => connect(...args)).toThrow(NeutronSettingsError);
    expect(() => connect(...args)).toThrow('the "password" key of --neutron-credentials-secret is required with --neutron-auth-type=password');
    const connection = neutronConnection(withSecretData(settingsFromFlags(flags(...args)), { password: "pw\n" }, secret), flags(...args));
    expect(connection.auth).toBeInstanceOf(KeystoneAuthenticator);
  });

  test("a Secret may carry every setting under its flag name, and wins over flags; unknown keys are refused", () => {
    const values = flags("--neutron-auth-type=password", "--neutron-auth-url=https://wrong");
    const settings = withSecretData(
      settingsFromFlags(values),
      { "auth-type": "v3applicationcredential", "auth-url": "https://keystone/v3", "application-credential-id": "ac", "application-credential-secret": "s" },
      secret,
    );
    expect(settings["auth-url"]).toBe("https://keystone/v3");
    expect(neutronConnection(settings, values).auth).toBeInstanceOf(KeystoneAuthenticator);
    expect(() => withSecretData(settings, { pasword: "typo" }, secret)).toThrow('Secret kube-system/neutron has unknown key "pasword"');
    expect(() => neutronConnection({ ...settings, "auth-type": "token" }, values)).toThrow('auth-type "token" is not one of: password, v3applicationcredential, noauth');
  });

  test("--neutron-credentials-secret is namespace/name", () => {
    expect(credentialsSecret(flags())).toBeUndefined();
    expect(credentialsSecret(flags("--neutron-credentials-secret=kube-system/neutron"))).toEqual(secret);
    expect(() => credentialsSecret(flags("--neutron-credentials-secret=neutron"))).toThrow('--neutron-credentials-secret="neutron" is not of the form namespace/name');
  });
});
