import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { authenticate, type RequestContext } from './context.js';
import { conditionalReads } from './conditional.js';
import { edgeOptions, encodeAnswersOnce, guardEdge, listeningOrigin } from './edge.js';
import { type PlatformAnswer, recordRoutes, recordStats } from './stats.js';
import { migrateModules, type Db } from './store/db.js';
import { collectionRoutes } from './collections/routes.js';
import { permissionRoutes } from './permissions/routes.js';
import { apiInformationRoutes, HEALTH_PATHS, healthRoutes } from './health/routes.js';
import { memberRoutes } from './members/routes.js';
import { organizationRoutes } from './organizations/routes.js';
import { organizationInviteRoutes } from './org-admin/invites.js';
import { accountRoutes } from './org-admin/accounts.js';
import { contentRoutes, DOWNLOAD_ROUTE, downloadRoutes } from './content-reads/routes.js';
import { PDF_ROUTE, pdfDownloadRoutes, pdfRoutes } from './content-reads/pdf-routes.js';
import { searchRoutes } from './content-reads/search-routes.js';
import { changeRequestRoutes } from './change-requests/routes.js';
import { changeRequestContentRoutes } from './change-requests/content-routes.js';
import { agentConversationRoutes } from './change-requests/agent-conversations.js';
import { gitRoutes } from './git/routes.js';
import { siteRoutes } from './sites/routes.js';
import { siteStructureRoutes } from './sites/structure-routes.js';
import { siteAccessRoutes } from './sites/access-routes.js';
import { siteRedirectRoutes } from './sites/redirects.js';
import { sitePermissionRoutes } from './sites/permissions.js';
import { DEFAULT_IMPORT_BUDGETS, importRoutes, registerImports, type ImportBudgets } from './imports/runs.js';
import { siteCustomizationRoutes } from './sites/customization.js';
import { siteExternalLinkRoutes } from './sites/external-links.js';
import { siteDuplicationRoutes } from './sites/duplication.js';
import { sitePreviewRoutes } from './sites/preview.js';
import { siteSearchRoutes } from './sites/search.js';
import { customHostnameRoutes, queueHostnameCheck, registerHostnameChecks } from './sites/hostnames.js';
import { recordResolver } from './outbound.js';
import { changeRequestCommentRoutes, spaceCommentRoutes } from './comments/comments.js';
import { urlRoutes } from './urls/routes.js';
import { samlRoutes } from './sso/routes.js';
import { activeProvider } from './sso/store.js';
import { fontRoutes, UPLOAD_ROUTE, uploadRoutes } from './fonts/routes.js';
import { OPENAPI_DOWNLOAD_ROUTE, openAPIDownloadRoutes, openAPIRoutes } from './openapi/routes.js';
import { computedRoutes } from './openapi/computed-routes.js';
import { registerConversations, queuePendingClustering } from './conversations/resume.js';
import { conversationRoutes } from './conversations/routes.js';
import {
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_REFRESH_HOURS,
  registerOpenAPI,
  type OpenAPIRefresher,
} from './openapi/store.js';
import { registerGitSync } from './git/sync.js';
import { translationRoutes } from './translations/routes.js';
import { glossaryRoutes } from './translations/glossary.js';
import { installationRoutes } from './integrations/installation-routes.js';
import { siteIntegrationRoutes, siteScripts } from './integrations/site-integrations.js';
import { integrationAssetRoutes, integrationRoutes } from './integrations/routes.js';
import { ASSET_ROUTE } from './integrations/store.js';
import {
  DEFAULT_DELIVERY_RETRY_BASE_MS,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  registerIntegrations,
} from './integrations/delivery.js';
import { EndpointPolicy } from './integrations/endpoints.js';
import { integrationDevelopmentRoutes } from './integrations/development.js';
import { spaceIntegrationBlockRoutes } from './integrations/space-blocks.js';
import { installationTokenRoutes } from './integrations/installation-tokens.js';
import { organizationInstallationRoutes } from './integrations/organization-installations.js';
import { integrationTaskRoutes, registerIntegrationTasks } from './integrations/tasks.js';
import { integrationRenderRoutes } from './integrations/render.js';
import { registerTranslations } from './translations/run.js';
import { watchTranslationSources } from './translations/store.js';
import { createTranslator } from './translations/translator.js';
import { JobQueue } from './jobs.js';
import { SpecReader } from './openapi/reader.js';
import { spaceRoutes } from './spaces/routes.js';
import { spaceEmbedRoutes } from './spaces/embeds.js';
import { teamRoutes } from './teams/routes.js';
import { userRoutes } from './users/routes.js';
import { validateRequests } from './validation.js';
import { auditRequests } from './audit/context.js';
import { auditEventRoutes, DEFAULT_AUDIT_RETENTION_DAYS, registerAuditPruning } from './audit/events.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The queue of background work (Git sync…); tests wait for it with `jobs.drain()`. */
    jobs: JobQueue;
    /** The schedule of OpenAPI URL checks; tests enqueue the checks due with `openapiRefresher.checkDue(at)`. */
    openapiRefresher: OpenAPIRefresher;
    /** Where OpenAPI texts are parsed and validated (a worker thread); tests count its `readings`. */
    openapiReader: SpecReader;
  }
}

export interface CreatePlatformOptions {
  /** Open database (see `openDatabase`). */
  db: Db;
  /**
   * Fastify logger setting.
   * @default false
   */
  logger?: FastifyServerOptions['logger'];
  /**
   * Milliseconds every request waits before it is handled, to imitate a remote API.
   * @default 0
   */
  delayMs?: number;
  /**
   * Let callers make the platform fetch from private and loopback addresses (files inserted by
   * URL): for demo and test runs, where every server is local. Never in production.
   * @default false
   */
  allowPrivateUrls?: boolean;
  /**
   * URLs that may receive integration events and render calls although they are `http`, loopback or
   * private (the gateway's receiver on this machine), each exactly as written (query included) and
   * without credentials or fragment; no other URL is let through by them (see `EndpointPolicy`).
   * @default []
   */
  eventReceivers?: readonly string[];
  /**
   * Let Git Sync use `file://` and `http://` URLs and local paths (demo and test runs, whose
   * repositories are on this machine); otherwise only `https://`.
   * @default false
   */
  gitAllowLocal?: boolean;
  /** Author and committer of the commits Git Sync exports. @default Docs platform <docs-platform@localhost> */
  gitAuthor?: { name: string; email: string };
  /** Certificates (a PEM file) Git Sync trusts for https remotes besides the system's: a private CA. */
  gitCaFile?: string | undefined;
  /**
   * Base URL of a LibreTranslate-compatible service that translation runs call
   * (`POST {url}/translate`); without it, runs pseudo-localize (offline).
   */
  translatorUrl?: string | undefined;
  /** API key sent to that service, if it needs one. Never logged nor shown in errors. */
  translatorApiKey?: string | undefined;
  /** Time one request to the translator may take, in milliseconds. @default 30000 */
  translatorTimeoutMs?: number | undefined;
  /**
   * Hours between two checks of an OpenAPI specification's URL source (fractions allowed).
   * @default 6
   */
  openapiRefreshHours?: number;
  /**
   * Milliseconds an OpenAPI URL source has to answer before its processing fails with `FETCH_TIMEOUT`.
   * @default 30000
   */
  openapiFetchTimeoutMs?: number;
  /**
   * Milliseconds one delivery of an event to an integration's endpoint may take.
   * @default 10000
   */
  deliveryTimeoutMs?: number;
  /**
   * Milliseconds before the second attempt at delivering an event (the third waits twice as long).
   * @default 2000
   */
  deliveryRetryBaseMs?: number;
  /**
   * Called with every answer just before it is sent (errors, 404s and bodiless answers
   * included), for tests that check answers against the API description. Must not throw.
   */
  onAnswer?: (answer: PlatformAnswer) => void;
  /**
   * `host:port` of the DNS server the checks of custom hostnames ask, on a loopback address only (tests run
   * their own); otherwise the system's servers.
   */
  dnsServer?: string | undefined;
  /** The name a custom hostname's CNAME must point to. @default hosting.docs-platform.example */
  hostingTarget?: string | undefined;
  /** Budgets of each content import run (pages, bytes, time). @default DEFAULT_IMPORT_BUDGETS */
  importBudgets?: Partial<ImportBudgets> | undefined;
  /** Days audit events are kept before the pruning job deletes them. @default 365 */
  auditRetentionDays?: number | undefined;
}

/** Author and committer of exported commits unless configured. */
export const DEFAULT_GIT_AUTHOR = { name: 'Docs platform', email: 'docs-platform@localhost' };

/** Builds the embedded platform: the documented REST API under `/v1`. Does not listen. */
export function createPlatform({
  db,
  logger = false,
  delayMs = 0,
  allowPrivateUrls = false,
  eventReceivers = [],
  gitAllowLocal = false,
  gitAuthor = DEFAULT_GIT_AUTHOR,
  gitCaFile,
  translatorUrl,
  translatorApiKey,
  translatorTimeoutMs,
  openapiRefreshHours = DEFAULT_REFRESH_HOURS,
  openapiFetchTimeoutMs = DEFAULT_FETCH_TIMEOUT_MS,
  deliveryTimeoutMs = DEFAULT_DELIVERY_TIMEOUT_MS,
  deliveryRetryBaseMs = DEFAULT_DELIVERY_RETRY_BASE_MS,
  onAnswer,
  dnsServer,
  hostingTarget,
  importBudgets,
  auditRetentionDays = DEFAULT_AUDIT_RETENTION_DAYS,
}: CreatePlatformOptions): FastifyInstance {
  // For a database opened before a module that owns tables was imported (`declareTables`).
  migrateModules(db);
  const app = Fastify(edgeOptions(logger));
  guardEdge(app);
  recordStats(app, { skip: HEALTH_PATHS, onAnswer });
  recordRoutes(app);
  encodeAnswersOnce(app);
  // Imitates a remote API.
  if (delayMs > 0) {
    app.addHook('onRequest', async (request) => {
      if (!HEALTH_PATHS.has(request.routeOptions.url ?? ''))
        await new Promise((resolve) => setTimeout(resolve, delayMs));
    });
  }
  app.decorateRequest('ctx', null as unknown as RequestContext);
  // Every write of a request is audited as its caller's (audit/).
  auditRequests(app);

  // Health checks, signed downloads and signed uploads need no token.
  app.addHook(
    'preHandler',
    authenticate(
      db,
      new Set([...HEALTH_PATHS, DOWNLOAD_ROUTE, PDF_ROUTE, UPLOAD_ROUTE, OPENAPI_DOWNLOAD_ROUTE, ASSET_ROUTE]),
    ),
  );

  // After authentication: a revoked token is answered 401, never 304.
  conditionalReads(app, db);

  // Background work: started once the server is ready, stopped (running jobs finished) on close.
  const jobs = new JobQueue(db);
  registerGitSync(jobs, { author: gitAuthor, caFile: gitCaFile, allowLocal: gitAllowLocal });
  registerConversations(jobs);
  registerTranslations(
    jobs,
    createTranslator({ url: translatorUrl, apiKey: translatorApiKey, timeoutMs: translatorTimeoutMs }),
  );
  // A new revision of a translation's source runs it, from the start (runs asked before
  // start wait in the queue).
  const stopWatching = watchTranslationSources(db, jobs);
  // OpenAPI texts are read in a worker thread, started at the first one and stopped on close.
  const openapiReader = new SpecReader();
  const openapiRefresher = registerOpenAPI(jobs, db, {
    allowPrivateUrls,
    reader: openapiReader,
    fetchTimeoutMs: openapiFetchTimeoutMs,
    refreshMs: openapiRefreshHours * 60 * 60 * 1000,
  });
  // Events of integrations, delivered to their endpoints with the URLs of this server.
  const endpoints = new EndpointPolicy(allowPrivateUrls, eventReceivers);
  const stopIntegrations = registerIntegrations(jobs, db, {
    endpoints,
    timeoutMs: deliveryTimeoutMs,
    retryBaseMs: deliveryRetryBaseMs,
    origin: () => listeningOrigin(app),
  });
  registerIntegrationTasks(jobs);
  registerHostnameChecks(jobs, { resolver: recordResolver(dnsServer), target: hostingTarget });
  registerImports(jobs, { allowPrivateUrls, budgets: { ...DEFAULT_IMPORT_BUDGETS, ...importBudgets } });
  const auditPruning = registerAuditPruning(jobs, db, { retentionDays: auditRetentionDays });
  app.decorate('jobs', jobs);
  app.decorate('openapiRefresher', openapiRefresher);
  app.decorate('openapiReader', openapiReader);
  app.addHook('onReady', async () => {
    jobs.start();
    queuePendingClustering(db, jobs);
    openapiRefresher.start();
    auditPruning.start();
  });
  app.addHook('onClose', async () => {
    stopWatching();
    stopIntegrations();
    openapiRefresher.stop();
    auditPruning.stop();
    await jobs.stop();
    await openapiReader.close();
  });

  healthRoutes(app, db);
  downloadRoutes(app, db);
  pdfDownloadRoutes(app, db);
  uploadRoutes(app, db);
  openAPIDownloadRoutes(app, db);
  integrationAssetRoutes(app, db);

  app.register(
    async (v1) => {
      // Before the routes: it checks each route as it is registered, and every request of it.
      validateRequests(v1);
      apiInformationRoutes(v1);
      organizationRoutes(v1, { canEnforceSso: (db, orgId) => activeProvider(db, orgId) !== undefined });
      organizationInviteRoutes(v1);
      accountRoutes(v1);
      memberRoutes(v1);
      teamRoutes(v1);
      collectionRoutes(v1);
      spaceRoutes(v1);
      permissionRoutes(v1);
      spaceEmbedRoutes(v1, { allowPrivateUrls });
      contentRoutes(v1);
      spaceCommentRoutes(v1);
      changeRequestRoutes(v1);
      changeRequestContentRoutes(v1, { allowPrivateUrls });
      changeRequestCommentRoutes(v1);
      agentConversationRoutes(v1);
      gitRoutes(v1, { queue: jobs, allowLocal: gitAllowLocal });
      siteRoutes(v1, { onHostname: (db, hostname, siteId) => queueHostnameCheck(db, jobs, hostname, siteId) });
      siteStructureRoutes(v1);
      siteAccessRoutes(v1, { scripts: siteScripts });
      siteRedirectRoutes(v1);
      sitePermissionRoutes(v1);
      siteCustomizationRoutes(v1);
      siteExternalLinkRoutes(v1);
      siteDuplicationRoutes(v1);
      sitePreviewRoutes(v1);
      siteSearchRoutes(v1, { queue: jobs });
      customHostnameRoutes(v1, { queue: jobs });
      importRoutes(v1, { queue: jobs, allowPrivateUrls });
      urlRoutes(v1);
      samlRoutes(v1);
      fontRoutes(v1);
      translationRoutes(v1, { queue: jobs });
      glossaryRoutes(v1);
      openAPIRoutes(v1, { queue: jobs, allowPrivateUrls });
      computedRoutes(v1);
      conversationRoutes(v1);
      integrationRoutes(v1, { endpoints });
      installationRoutes(v1);
      integrationDevelopmentRoutes(v1, { endpoints });
      siteIntegrationRoutes(v1);
      spaceIntegrationBlockRoutes(v1);
      installationTokenRoutes(v1);
      organizationInstallationRoutes(v1);
      integrationTaskRoutes(v1, { queue: jobs });
      integrationRenderRoutes(v1, { endpoints, timeoutMs: deliveryTimeoutMs });
      searchRoutes(v1);
      pdfRoutes(v1);
      userRoutes(v1);
      auditEventRoutes(v1);
    },
    { prefix: '/v1' },
  );

  return app;
}
