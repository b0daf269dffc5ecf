/** NVD CPE configuration in the API 2.0 layout (docs/api-v2.md `nvd_cpe_configurations`). */
export interface NvdConfiguration {
  operator?: 'AND' | 'OR';
  negate?: boolean;
  nodes: {
    operator: 'AND' | 'OR';
    negate: boolean;
    cpeMatch: {
      criteria: string;
      matchCriteriaId: string;
      vulnerable: boolean;
      versionStartIncluding?: string;
      versionStartExcluding?: string;
      versionEndIncluding?: string;
      versionEndExcluding?: string;
    }[];
  }[];
}
