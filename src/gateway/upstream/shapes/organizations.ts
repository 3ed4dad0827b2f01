import { z } from 'zod';
import { dateTime, document, mergeRules, roleOrGuest, url } from './common.js';

const pricePair = z.object({ monthly: z.number().nullish(), yearly: z.number().nullish() }).partial();

export const organization = z.object({
  object: z.literal('organization'),
  id: z.string(),
  title: z.string(),
  createdAt: dateTime,
  emailDomains: z.array(z.string()).default([]),
  hostname: z.string().nullish(),
  type: z.string().nullish(),
  useCase: z.string().nullish(),
  communityType: z.string().nullish(),
  defaultRole: roleOrGuest.optional(),
  defaultContent: z.object({ type: z.string(), site: z.string().optional() }).nullish(),
  sso: z.boolean().nullish(),
  ai: z.boolean().nullish(),
  inviteLinks: z.boolean().nullish(),
  plan: z.string().nullish(),
  billing: z
    .object({
      interval: z.string().nullish(),
      endDate: z.string().nullish(),
      hasPaymentFailed: z.boolean().nullish(),
      isScheduledToCancel: z.boolean().nullish(),
      pricing: z
        .object({
          members: z.record(z.string(), pricePair).nullish(),
          sites: z.record(z.string(), pricePair).nullish(),
        })
        .nullish(),
      usageAddons: z.record(z.string(), z.object({ enabled: z.boolean() })).nullish(),
      minUsers: z.number().nullish(),
      maxUsers: z.number().nullish(),
      paidMembers: z.number().nullish(),
    })
    .nullish(),
  mergeRules: mergeRules.nullish(),
  urls: z.object({
    location: url.nullish(),
    app: url.nullish(),
    logo: url.nullish(),
  }),
  trial: z
    .object({
      status: z.string().nullish(),
      count: z.number().nullish(),
      endDate: z.string().nullish(),
      decision: z.string().nullish(),
    })
    .nullish(),
  customHostname: z.string().nullish(),
  blocked: z.object({ source: z.string().nullish(), reason: z.string().nullish() }).nullish(),
  permissions: z
    .object({
      view: z.boolean(),
      admin: z.boolean(),
      ownTeam: z.boolean(),
      createContent: z.boolean(),
      createOpenAPISpec: z.boolean(),
      ingestConversations: z.boolean(),
      viewBilling: z.boolean(),
      listMembers: z.boolean(),
      listTeams: z.boolean(),
      listIntegrations: z.boolean(),
      listInstallations: z.boolean(),
      installIntegration: z.boolean(),
    })
    .partial(),
});
export type Organization = z.infer<typeof organization>;

export const organizationsByEmailDomain = z.object({ organizations: z.array(organization) });

export const agentInstructions = z.object({
  object: z.literal('agent-instructions'),
  instructions: document,
  updatedAt: dateTime,
  updatedBy: z.string().nullish(),
  urls: z.object({ location: url.nullish() }).nullish(),
});
export type AgentInstructions = z.infer<typeof agentInstructions>;

export const pingResult = z
  .object({ serviceVisitorClaims: z.string().optional(), gitbookVisitorClaims: z.string().optional() })
  .nullish();
