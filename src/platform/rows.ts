/** Row types of the platform's SQLite tables (see store/migrations.ts). */

export interface UserRow {
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
  created_at: string;
}

export interface OrganizationRow {
  id: string;
  title: string;
  created_at: string;
  email_domains: string;
  hostname: string | null;
  type: string;
  use_case: string | null;
  community_type: string | null;
  default_role: string | null;
  default_content: string | null;
  sso: number;
  ai: number;
  invite_links: number;
  plan: string;
  merge_rules: string;
  logo: string | null;
  /** The user who created the organization (migration 2; null only if that user is gone). */
  created_by: string | null;
}

export interface MemberRow {
  org_id: string;
  user_id: string;
  role: string | null;
  disabled: number;
  sso: number;
  joined_at: string;
  last_seen_at: string | null;
}

export interface TeamRow {
  id: string;
  org_id: string;
  title: string;
  created_at: string;
}

export interface TeamMemberRow {
  team_id: string;
  user_id: string;
  role: 'owner' | 'member';
  added_at: string;
}

export interface CollectionRow {
  id: string;
  org_id: string;
  parent_id: string | null;
  title: string;
  description: string | null;
  default_level: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SpaceRow {
  id: string;
  org_id: string;
  parent_id: string | null;
  title: string;
  emoji: string | null;
  visibility: string;
  edit_mode: string;
  merge_rules: string;
  language: string | null;
  default_level: string;
  revision: string;
  share_key: string;
  git_sync: string | null;
  visitor_auth: string | null;
  position: number;
  change_requests: number;
  change_requests_open: number;
  change_requests_draft: number;
  /** Open comments on the space (not in change requests), kept by the comments module. */
  comments_open?: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ContentPermissionRow {
  content_type: 'collection' | 'space';
  content_id: string;
  principal_type: 'user' | 'team';
  principal_id: string;
  role: string;
  created_at: string;
}
