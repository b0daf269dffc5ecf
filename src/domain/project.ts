/** A project of an organization, with the number of its subscriptions. */
export interface ProjectRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
  subscriptions_count: number;
}
