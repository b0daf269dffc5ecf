/**
 * The benchmark's inventories written as a CycloneDX 1.5 JSON document, as an SBOM tool writes one:
 * a `{vendor, product, version}` as a component named by its product with its vendor as supplier, a
 * CPE 2.3 name as a component named by the CPE's product and carrying the CPE, a package URL as a
 * component named by its last path segment and carrying the purl.
 */
type Component = Record<string, unknown>;

function component(item: unknown, index: number): Component {
  const ref = { 'bom-ref': `c${index}`, type: 'library' };
  if (typeof item === 'string' && item.startsWith('cpe:2.3:')) {
    const fields = item.split(/(?<!\\):/);
    const version = fields[5];
    return {
      ...ref,
      name: fields[4]!.replace(/\\/g, ''),
      ...(version && version !== '*' && version !== '-' ? { version: version.replace(/\\/g, '') } : {}),
      cpe: item,
    };
  }
  if (typeof item === 'string') {
    const at = item.lastIndexOf('@');
    const path = at > 0 ? item.slice(0, at) : item;
    return {
      ...ref,
      name: decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)),
      ...(at > 0 ? { version: decodeURIComponent(item.slice(at + 1)) } : {}),
      purl: item,
    };
  }
  const { vendor, product, version } = item as { vendor: string; product: string; version: string };
  return { ...ref, name: product, version, supplier: { name: vendor } };
}

/** The items (as `POST /api/v2/match` takes them) as the text of a CycloneDX 1.5 JSON SBOM. */
export function cycloneDx(items: readonly unknown[], name: string): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { component: { type: 'application', name } },
    components: items.map(component),
  });
}
