// The encoding a test run's clients ask for built-in resources. Protobuf, as
// --kube-api-content-type's default, unless KUBE_LOOM_TEST_CONTENT_TYPE names another: one
// variable turns a whole suite over to JSON, to show that both wires give the same results.
import { apiContentTypes, type ApiContentType, isApiContentType, protobufMediaType } from "../kube/protobuf/media-types.ts";

export const testContentTypeVariable = "KUBE_LOOM_TEST_CONTENT_TYPE";

/** The run's encoding; a value that is not one of --kube-api-content-type's throws one line naming it. */
export function testContentType(env: Record<string, string | undefined> = process.env): ApiContentType {
  const value = env[testContentTypeVariable];
  if (value === undefined || value === "") return protobufMediaType;
  if (!isApiContentType(value)) throw new Error(`${testContentTypeVariable}=${JSON.stringify(value)}: expected ${apiContentTypes.join(" or ")}`);
  return value;
}
