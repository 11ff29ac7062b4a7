// One entry of --webhook-target (a host, *.domain, an address or a CIDR range), parsed apart from
// the policy that applies it (targets.ts): the CLI checks its options without loading the HTTP
// client the policy needs.
import { isIP } from 'node:net';

export type Family = 'ipv4' | 'ipv6';
export const familyOf = (address: string): Family => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** The hosts and ranges of --webhook-target, parsed; or why an entry is not one. */
export function parseTargetEntry(entry: string): { range: [string, number, Family] } | { name: string } | string {
  const text = entry.trim().toLowerCase();
  if (text.includes('://')) return `'${entry}': give the host alone (hooks.internal), not a URL`;
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare)) {
    const family = familyOf(bare);
    const max = family === 'ipv4' ? 32 : 128;
    const bits = slash < 0 ? max : /^\d{1,3}$/.test(text.slice(slash + 1)) ? Number(text.slice(slash + 1)) : Number.NaN;
    if (!(bits >= 0 && bits <= max)) return `'${entry}': the prefix length after / must be 0 to ${max}`;
    return { range: [bare, bits, family] };
  }
  if (slash >= 0) return `'${entry}': a range is an IP address and a prefix length, such as 10.0.0.0/8 or fd00::/8`;
  if (!/^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(text)) {
    return `'${entry}': give a host name (hooks.internal, or *.internal for every name under it), an IP address or a CIDR range`;
  }
  return { name: text.replace(/\.$/, '') };
}
