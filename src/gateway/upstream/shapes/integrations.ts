import { z } from 'zod';
import { dateTime, url } from './common.js';
import { site } from './sites.js';
import { space } from './spaces.js';

/** Shapes of integrations, their installations on organizations, spaces and sites, and their events. */

export const INTEGRATION_SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
] as const;
export const INTEGRATION_CATEGORIES = [
  'analytics',
  'collaboration',
  'content',
  'marketing',
  'visitor-auth',
  'other',
] as const;
export const INTEGRATION_RUNTIMES = ['v1', 'v2'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const INTEGRATION_TARGETS = ['all', 'site', 'space', 'organization'] as const;
export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export const INSTALLATION_STATUSES = ['active', 'pending', 'paused'] as const;
export const EVENT_STATUSES = ['pending', 'success', 'failed'] as const;
export const EVENT_TYPES = [
  'installation_setup',
  'installation_deleted',
  'space_installation_setup',
  'space_installation_deleted',
  'site_installation_setup',
  'site_installation_deleted',
  'site_view',
  'space_content_updated',
  'space_gitsync_completed',
  'space_gitsync_started',
  'space_visibility_updated',
  'task',
  'fetch',
  'fetch_published_script',
  'fetch_visitor_authentication',
  'ui_render',
  'content_compute_document',
  'content_compute_revision',
  'page_feedback',
] as const;

export const integration = z.object({
  object: z.literal('integration').optional(),
  name: z.string(),
  version: z.number().int(),
  title: z.string(),
  description: z.string().default(''),
  summary: z.string().optional(),
  /** Signed image URLs: kept whole. */
  previewImages: z.array(z.string()).default([]),
  target: z.enum(INTEGRATION_TARGETS),
  verified: z.boolean().default(false),
  visibility: z.enum(INTEGRATION_VISIBILITIES),
  scopes: z.array(z.enum(INTEGRATION_SCOPES)).default([]),
  categories: z.array(z.enum(INTEGRATION_CATEGORIES)).default([]),
  blocks: z
    .array(
      z
        .object({
          id: z.string(),
          title: z.string(),
          description: z.string().optional(),
          icon: z.string().optional(),
          urlUnfurl: z.array(z.string()).optional(),
        })
        .passthrough(),
    )
    .optional(),
  contentSources: z
    .array(z.object({ id: z.string(), title: z.string(), description: z.string().optional() }).passthrough())
    .optional(),
  configurations: z.record(z.string(), z.unknown()).optional(),
  externalLinks: z.array(z.object({ url, label: z.string() })).default([]),
  owner: z.object({ id: z.string() }).passthrough(),
  urls: z
    .object({
      location: url.optional(),
      icon: z.string().optional(),
      app: url.optional(),
      publicEndpoint: url.optional(),
    })
    .passthrough(),
  permissions: z.object({ admin: z.boolean().optional() }).passthrough().default({}),
});
export type Integration = z.infer<typeof integration>;

export const installation = z.object({
  id: z.string(),
  status: z.enum(INSTALLATION_STATUSES),
  space_selection: z.enum(['all', 'selected']),
  site_selection: z.enum(['all', 'selected']),
  spaces: z.number().int().default(0),
  configuration: z.record(z.string(), z.unknown()).default({}),
  createdAt: dateTime,
  updatedAt: dateTime.optional(),
  externalIds: z.array(z.string()).default([]),
  target: z.object({ organization: z.string() }),
  urls: z.object({ location: url.optional(), app: url.optional() }).passthrough(),
});
export type Installation = z.infer<typeof installation>;

const contentItem = {
  integration: z.string(),
  installation: z.string(),
  status: z.enum(INSTALLATION_STATUSES),
  configuration: z.record(z.string(), z.unknown()).default({}),
  externalIds: z.array(z.string()).default([]),
  urls: z.object({ location: url.optional() }).passthrough(),
};

/** An installation on a space; `space` is the space itself with `extended=true` when the caller may read it. */
export const spaceInstallation = z.object({ ...contentItem, space: z.union([z.string(), space]) });
export type SpaceInstallation = z.infer<typeof spaceInstallation>;

export const siteInstallation = z.object({ ...contentItem, site: z.union([z.string(), site]) });
export type SiteInstallation = z.infer<typeof siteInstallation>;

export const integrationEvent = z.object({
  id: z.string(),
  integrationId: z.string().optional(),
  installationId: z.string().optional(),
  createdAt: dateTime,
  payload: z.object({ type: z.string() }).passthrough(),
  status: z.enum(EVENT_STATUSES).optional(),
});
export type IntegrationEvent = z.infer<typeof integrationEvent>;

export const traceLog = z.object({
  message: z.string(),
  timestamp: dateTime.optional(),
  level: z.enum(LOG_LEVELS).optional(),
});
export const eventWithTrace = z.object({ event: integrationEvent, trace: z.object({ logs: z.array(traceLog) }) });
