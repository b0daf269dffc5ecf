/** Membership of an organization: its roles and a member as listed. */
export type Role = 'owner' | 'member';

/** A membership with the member's username (null while no user is linked). */
export interface MemberRow {
  id: string;
  organization_id: string;
  user_id: string | null;
  email: string;
  username: string | null;
  role: Role;
  date_invited: Date;
  date_joined: Date | null;
}
