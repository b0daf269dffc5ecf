/**
 * Which non-public destinations an operator lets notification URLs reach (docs/notifications.md,
 * "Outbound"): none by default; all loopback, private and link-local addresses with
 * OUTBOUND_ALLOW_PRIVATE; or the internal receivers OUTBOUND_ALLOW_HOSTS lists (host names, `*.`
 * patterns, addresses and CIDR networks). Pure: the SSRF guard in notifications/outbound.ts asks it.
 */
import ipaddr from 'ipaddr.js';

/**
 * The non-public destinations an operator allows: none (`false`, the default), all (`true`,
 * OUTBOUND_ALLOW_PRIVATE) or the hosts and networks of OUTBOUND_ALLOW_HOSTS (`parseAllowedHosts`).
 */
export type PrivateDestinations = boolean | AllowedHosts;

/** OUTBOUND_ALLOW_HOSTS read: host names (exact, or every name under `*.`) and CIDR networks. */
export interface AllowedHosts {
  names: readonly string[];
  suffixes: readonly string[];
  networks: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

/**
 * Reads OUTBOUND_ALLOW_HOSTS: a comma-separated list of host names (`chat.corp.example`), name
 * patterns (`*.corp.example`: every name under it), IP addresses and CIDR networks (`10.20.0.0/16`,
 * `fd00::/8`). Throws an Error naming the entry it cannot read.
 */
export function parseAllowedHosts(setting: string): AllowedHosts {
  const names: string[] = [];
  const suffixes: string[] = [];
  const networks: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of setting.split(',')) {
    const entry = raw.trim().toLowerCase().replace(/\.$/, '');
    if (!entry) continue;
    if (entry.includes('://'))
      throw new Error(`"${raw.trim()}" is a URL: list its host name alone (like chat.corp.example)`);
    if (entry.includes('/')) {
      try {
        networks.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`"${raw.trim()}" is not a CIDR network (like 10.20.0.0/16 or fd00::/8)`);
      }
    } else if (ipaddr.isValid(entry.replace(/^\[(.*)\]$/, '$1'))) {
      const address = ipaddr.parse(entry.replace(/^\[(.*)\]$/, '$1'));
      networks.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      if (entry.startsWith('*.')) suffixes.push(entry.slice(1));
      else names.push(entry);
    } else {
      throw new Error(`"${raw.trim()}" is not a host name, *.domain pattern, IP address or CIDR network`);
    }
  }
  return { names, suffixes, networks };
}

export function nameAllowed(host: string, allow: PrivateDestinations): boolean {
  if (typeof allow === 'boolean') return allow;
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.names.includes(name) || allow.suffixes.some((suffix) => name.endsWith(suffix));
}

export function addressAllowed(address: string, allow: PrivateDestinations): boolean {
  if (typeof allow === 'boolean') return allow;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return allow.networks.some(
    ([network, bits]) => parsed.kind() === network.kind() && parsed.match(network, bits),
  );
}
