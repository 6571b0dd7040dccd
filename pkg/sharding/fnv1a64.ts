// The 64-bit FNV-1a hash over a string's UTF-8 bytes: the function the API server's shard filter
// (KEP-5866, `shardRange(object.metadata.namespace, …)`) applies, so a range means the same
// namespaces here and there.
const offsetBasis = 0xcbf29ce484222325n;
const prime = 0x100000001b3n;
const mask = 0xffffffffffffffffn;
const utf8 = new TextEncoder();

export function fnv1a64(value: string): bigint {
  let hash = offsetBasis;
  for (const byte of utf8.encode(value)) hash = ((hash ^ BigInt(byte)) * prime) & mask;
  return hash;
}
