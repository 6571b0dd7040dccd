import { describe, expect, test } from "bun:test";
import { testContentType } from "./test-content-type.ts";

describe("testContentType", () => {
  test("protobuf unless the run names another", () => {
    expect(testContentType({})).toBe("application/vnd.kubernetes.protobuf");
    expect(testContentType({ KUBE_LOOM_TEST_CONTENT_TYPE: "" })).toBe("application/vnd.kubernetes.protobuf");
    expect(testContentType({ KUBE_LOOM_TEST_CONTENT_TYPE: "application/json" })).toBe("application/json");
  });

  test("a value --kube-api-content-type would refuse is one line naming it", () => {
    expect(() => testContentType({ KUBE_LOOM_TEST_CONTENT_TYPE: "json" })).toThrow('KUBE_LOOM_TEST_CONTENT_TYPE="json": expected application/vnd.kubernetes.protobuf or application/json');
  });
});
