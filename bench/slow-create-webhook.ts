// A validating admission webhook that makes the API server itself answer some Pod creates late:
// it allows every create, but waits before allowing one create in `every` (the every-th, 2·every-th, …
// of each namespace, so each controller measured gets the same delays in the same places).
// Being in the API server, the delay is the same for any client: a slow answer, not a lost one.
// Only namespaces carrying `slowCreatesLabel` are affected; the rest of the bench runs at full speed.
import { Buffer } from "node:buffer";
import { generateSelfSignedCertificate } from "../pkg/server/self-signed-certificate.ts";

export const slowCreatesLabel = { "bench.kube-loom.dev/slow-creates": "true" } as const;

const webhookName = "slow-pod-creates.bench.kube-loom.dev";

export interface SlowCreates {
  /** One create in `every` is answered late, e.g. 10 for 10 %. */
  every: number;
  delayMs: number;
}

/** "0.1:5s" → one create in 10, 5 s late. */
export function parseSlowCreates(text: string): SlowCreates {
  const match = /^(0?\.\d+|1):(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (!match) throw new Error(`--slow-creates takes <fraction>:<delay>, e.g. 0.1:5s; got ${JSON.stringify(text)}`);
  const [, fraction = "", amount = "", unit] = match;
  return { every: Math.round(1 / Number(fraction)), delayMs: Number(amount) * (unit === "s" ? 1000 : 1) };
}

export function describeSlowCreates({ every, delayMs }: SlowCreates): string {
  return `1 create in ${every} answered ${delayMs / 1000} s late`;
}

/** The fields of an AdmissionReview request read here. */
interface AdmissionReview {
  request?: { uid?: string; namespace?: string };
}

export class SlowCreateWebhook {
  /** Pod creates seen per namespace, and how many of them were held back. */
  private readonly seen = new Map<string, number>();
  private readonly delayed = new Map<string, number>();

  private readonly server: ReturnType<typeof Bun.serve>;
  /** The CA of the serving certificate, for the webhook configuration's caBundle. */
  private readonly caPem: string;

  constructor(private readonly slow: SlowCreates) {
    const { certPem, keyPem } = generateSelfSignedCertificate({ host: "127.0.0.1", alternateIps: [], alternateDnsNames: [] });
    // The certificate file is the server certificate, then its CA: the API server trusts only the CA.
    this.caPem = certPem.slice(certPem.lastIndexOf("-----BEGIN CERTIFICATE-----"));
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: certPem, key: keyPem }, fetch: (request) => this.review(request) });
  }

  /** The ValidatingWebhookConfiguration that sends Pod creates in labelled namespaces here. */
  configuration(): object {
    return {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: webhookName },
      webhooks: [
        {
          name: webhookName,
          clientConfig: { url: `https://127.0.0.1:${this.server.port}/validate`, caBundle: Buffer.from(this.caPem).toString("base64") },
          rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"], scope: "Namespaced" }],
          namespaceSelector: { matchLabels: slowCreatesLabel },
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          // A webhook that fails or times out must not turn the delay into a rejection.
          failurePolicy: "Ignore",
          timeoutSeconds: Math.min(30, Math.ceil(this.slow.delayMs / 1000) + 5),
        },
      ],
    };
  }

  /** Pod creates seen in the namespace so far (also tells that the API server calls the webhook). */
  createsSeen(namespace: string): number {
    return this.seen.get(namespace) ?? 0;
  }

  createsDelayed(namespace: string): number {
    return this.delayed.get(namespace) ?? 0;
  }

  stop(): void {
    void this.server.stop(true);
  }

  private async review(request: Request): Promise<Response> {
    const review = (await request.json()) as AdmissionReview;
    const namespace = review.request?.namespace ?? "";
    const count = (this.seen.get(namespace) ?? 0) + 1;
    this.seen.set(namespace, count);
    if (count % this.slow.every === 0) {
      this.delayed.set(namespace, (this.delayed.get(namespace) ?? 0) + 1);
      await Bun.sleep(this.slow.delayMs);
    }
    return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request?.uid ?? "", allowed: true } });
  }
}
