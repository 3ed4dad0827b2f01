import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { DEMO_SITE_SECRETS } from '../../src/platform/sites/demo.js';
import { minimalWoff2 } from '../../src/platform/fonts/woff.js';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, sampleContent, textDocument } from '../fixtures/content.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { OPERATIONS } from '../fixtures/operations.js';
import { graphql } from '../graphql/index.js';

/**
 * Drives every REST operation of the served groups through GraphQL, and checks at the
 * platform that each one was reached and answered with a success status.
 */
let g: TestGateway;
const answered: Array<{ method: string; url: string; status: number }> = [];

beforeAll(async () => {
  g = await startTestGateway();
});
afterAll(() => g.destroy());

/** Runs a typed operation, fails on any error or userError, and keeps what the platform answered. */
async function run<R, V extends Record<string, unknown>>(
  document: TypedDocumentNode<R, V>,
  variables?: V,
  token?: string,
): Promise<R> {
  const result = await g.typed(document, variables, token ? { token } : {});
  answered.push(...g.platform.app.stats.answers);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data ?? {})) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result.data!;
}

function matcher(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`);
}

describe('every REST operation of the served groups is reachable through GraphQL', () => {
  it('reaches all of them with a success status', async () => {
    const ivyToken = g.platform.token(DEMO.users.ivy);
    const people = await run(
      graphql(`query CoveragePeople {
      viewer { platformId }
      organizations { nodes { platformId } }
      organizationsByEmailDomain(domain: "acme.test") { platformId }
      organization(id: "acme") { members(first: 50) { nodes { platformId user { email } } } }
    }`),
    );
    const userId = (email: string) =>
      people.organization!.members!.nodes.find((m) => m.user.email === email)!.platformId;
    await run(graphql(`query CoverageUser($id: ID!) { user(id: $id) { displayName } }`), {
      id: userId(DEMO.users.ben),
    });

    const reads = await run(
      graphql(`query CoverageReads($ben: ID!, $team: ID!, $collection: ID!) {
      organization(id: "acme") {
        agentInstructions { updatedAt }
        members(first: 2) { nodes { spaces(first: 2) { totalCount } teams { totalCount } } }
        teams { nodes { platformId members { totalCount } } }
        collections { nodes { platformId users { totalCount } accessibleBy { totalCount } spaces { totalCount } } }
        spaces(first: 50) { nodes { platformId title } }
      }
      member(organizationId: "acme", userId: $ben) { role }
      team(organizationId: "acme", id: $team) { title }
      collection(id: $collection) { title }
    }`),
      { ben: userId(DEMO.users.ben), team: DEMO.teams.writers, collection: DEMO.collections.product },
    );
    const someSpace = reads.organization!.spaces!.nodes[0]!.platformId;
    await run(graphql(`query CoverageSpace($id: ID!) { space(id: $id) { title } }`), { id: someSpace });

    const contentSpace = g.platform.spaceId(DEMO.spaces.userGrant);
    commitContent(g.platform.db, contentSpace, sampleContent(g.platform.db, contentSpace, ' (coverage)').content);
    await run(
      graphql(`query CoverageContent($id: ID!) {
      space(id: $id) {
        links(first: 1) { totalCount }
        search(query: "installer") { totalCount }
        pdf { url }
        content {
          changes { more }
          files(first: 1) { nodes { backlinks { totalCount } } }
          page(path: "") { ... on DocumentPage { markdown document { text } links { totalCount } backlinks { totalCount } } }
        }
      }
      organization(id: "acme") { search(query: "installer") { totalCount } }
    }`),
      { id: contentSpace },
    );
    // Each narrow read of the current content and of a revision by id: asked alone, a revision
    // reads only what is asked (its tree, its files, one file, one page, one reusable content).
    const base = sampleContent(g.platform.db, contentSpace, ' (narrow)');
    const snippet = putDocument(
      g.platform.db,
      contentSpace,
      textDocument([[0, 'Reach support at support@acme.test.']]),
    );
    const bodiless = { id: 'pg-empty', type: 'document' as const, title: 'Empty page', slug: 'empty', pages: [] };
    const narrowRevision = commitContent(g.platform.db, contentSpace, {
      ...base.content,
      pages: [...base.content.pages, bodiless],
      reusableContents: [{ id: 'rc-support', title: 'Support', documentId: snippet }],
    });
    await run(
      graphql(`query CoverageCurrentContent($id: ID!) {
      space(id: $id) {
        tree: content { pages { title } }
        files: content { files(first: 1) { totalCount } }
        file: content { file(id: "file-notes") { name } }
        byId: content { page(id: "pg-install") { title ... on DocumentPage { markdown metaLinks { alternates { url } } } } }
        byPath: content { page(path: "getting-started") { title } }
        reusable: content { reusableContent(id: "rc-support") { title document { text } } }
        full: content { createdAt }
      }
    }`),
      { id: contentSpace },
    );
    await run(
      graphql(`query CoverageRevision($id: ID!, $revision: ID!) {
      space(id: $id) {
        tree: revision(id: $revision) { pages { title } }
        files: revision(id: $revision) { files(first: 1) { totalCount } }
        file: revision(id: $revision) { file(id: "file-notes") { name } }
        byId: revision(id: $revision) { page(id: "pg-empty") { ... on DocumentPage { document { text } markdown metaLinks { alternates { url } } } } }
        byPath: revision(id: $revision) { page(path: "api") { title } }
        reusable: revision(id: $revision) { reusableContent(id: "rc-support") { title } }
        full: revision(id: $revision) { createdAt }
      }
    }`),
      { id: contentSpace, revision: narrowRevision },
    );

    // The same narrow reads of a change request's content, through the change request.
    const request = await run(
      graphql(
        `mutation CoverageContentRequest($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Coverage" }) { changeRequest { id } userErrors { code } } }`,
      ),
      { id: contentSpace },
    );
    await run(
      graphql(`query CoverageRequestContent($id: ID!) {
      node(id: $id) {
        ... on ChangeRequest {
          tree: content { pages { title } }
          files: content { files(first: 1) { totalCount nodes { backlinks { totalCount } } } }
          file: content { file(id: "file-notes") { name } }
          byId: content { page(id: "pg-install") { title ... on DocumentPage { markdown metaLinks { alternates { url } } links { totalCount } backlinks { totalCount } } } }
          byPath: content { page(path: "getting-started") { title } }
          reusable: content { reusableContent(id: "rc-support") { title } }
          full: content { createdAt }
        }
      }
    }`),
      { id: request.createChangeRequest.changeRequest!.id },
    );

    await run(
      graphql(
        `mutation CoverageJoin { joinOrganization(input: { organizationId: "acme" }) { organization { platformId } userErrors { code } } }`,
      ),
      undefined,
      ivyToken,
    );
    await run(
      graphql(`mutation CoveragePing { pingOrganization(input: { organizationId: "acme" }) { userErrors { code } } }`),
      undefined,
      ivyToken,
    );
    const joined = await run(
      graphql(`query CoverageJoined { organization(id: "acme") { members(search: "ivy") { nodes { platformId } } } }`),
    );
    const ivy = joined.organization!.members!.nodes[0]!.platformId;
    const invite = g.platform.db.prepare("SELECT id FROM link_invites WHERE org_id = 'acme'").get() as { id: string };
    await run(
      graphql(`mutation CoverageOrganizationWrites($ivy: ID!, $invite: String!) {
      updateOrganization(input: { organizationId: "acme", ai: true }) { userErrors { code } }
      deleteOrganizationInvite(input: { organizationId: "acme", inviteId: $invite }) { deleted userErrors { code } }
      updateAgentInstructions(input: { organizationId: "acme", instructions: { text: "Be kind." } }) { userErrors { code } }
      setMemberSso(input: { organizationId: "acme", userId: $ivy }) { userErrors { code } }
      updateMember(input: { organizationId: "acme", userId: $ivy, role: EDIT }) { userErrors { code } }
    }`),
      { ivy, invite: invite.id },
    );

    const team = await run(
      graphql(
        `mutation CoverageCreateTeam($ivy: ID!) { createTeam(input: { organizationId: "acme", title: "Coverage", memberIds: [$ivy] }) { team { id } userErrors { code } } }`,
      ),
      { ivy },
    );
    const teamId = team.createTeam.team!.id;
    await run(
      graphql(`mutation CoverageTeamWrites($team: ID!, $ivy: ID!, $finn: String!) {
      updateTeam(input: { teamId: $team, title: "Coverage team" }) { userErrors { code } }
      updateTeamMembers(input: { teamId: $team, add: [$finn] }) { userErrors { code } }
      setTeamMember(input: { teamId: $team, userId: $ivy, role: OWNER }) { userErrors { code } }
      removeTeamMember(input: { teamId: $team, userId: $ivy }) { deleted userErrors { code } }
      deleteTeam(input: { teamId: $team }) { deleted userErrors { code } }
    }`),
      { team: teamId, ivy, finn: DEMO.users.finn },
    );

    const collections = await run(
      graphql(`mutation CoverageCreateCollections {
      a: createCollection(input: { organizationId: "acme", title: "Coverage A" }) { collection { platformId } userErrors { code } }
      b: createCollection(input: { organizationId: "acme", title: "Coverage B" }) { collection { platformId } userErrors { code } }
    }`),
    );
    const a = collections.a.collection!.platformId;
    const b = collections.b.collection!.platformId;
    await run(
      graphql(`mutation CoverageCollectionWrites($a: ID!, $b: ID!, $ivy: ID!) {
      updateCollection(input: { collectionId: $a, description: "For the coverage test" }) { userErrors { code } }
      moveCollection(input: { collectionId: $b, parentId: $a }) { userErrors { code } }
      inviteToCollection(input: { collectionId: $a, role: READ, userIds: [$ivy] }) { userErrors { code } }
      updateCollectionUserPermission(input: { collectionId: $a, userId: $ivy, role: EDIT }) { userErrors { code } }
      removeCollectionUser(input: { collectionId: $a, userId: $ivy }) { deleted userErrors { code } }
    }`),
      { a, b, ivy },
    );

    const space = await run(
      graphql(
        `mutation CoverageCreateSpace($a: ID!) { createSpace(input: { organizationId: "acme", title: "Coverage space", parentId: $a }) { space { platformId } userErrors { code } } }`,
      ),
      { a },
    );
    const spaceId = space.createSpace.space!.platformId;
    const copy = await run(
      graphql(`mutation CoverageSpaceWrites($s: ID!) {
      updateSpace(input: { spaceId: $s, title: "Coverage space 2" }) { userErrors { code } }
      duplicateSpace(input: { spaceId: $s }) { space { platformId } userErrors { code } }
      moveSpace(input: { spaceId: $s, parentId: null }) { userErrors { code } }
    }`),
      { s: spaceId },
    );
    await run(
      graphql(`mutation CoverageTransfers($s: ID!, $copy: ID!, $a: ID!) {
      transferSpace(input: { spaceId: $copy, organizationId: "globex" }) { userErrors { code } }
      deleteSpace(input: { spaceId: $s }) { deleted userErrors { code } }
      restoreSpace(input: { spaceId: $s }) { space { platformId } userErrors { code } }
      transferCollection(input: { collectionId: $a, organizationId: "globex" }) { userErrors { code } }
      deleteCollection(input: { collectionId: $a }) { deleted userErrors { code } }
    }`),
      { s: spaceId, copy: copy.duplicateSpace.space!.platformId, a },
    );
    await run(
      graphql(
        `mutation CoverageRemoveMember($ivy: ID!) { removeMember(input: { organizationId: "acme", userId: $ivy }) { deleted userErrors { code } } }`,
      ),
      { ivy },
    );

    // Change requests, on a space of their own without merge rules: one is created, edited, given
    // a template, asked for reviews (one withdrawn), updated from the live content the template
    // changed, approved, read with all its lists and its PDF, then merged.
    const crSpace = await run(
      graphql(`mutation CoverageChangeRequestSpace {
      createSpace(input: { organizationId: "acme", title: "Coverage change requests" }) { space { id } userErrors { code } }
    }`),
    );
    const crSpaceId = crSpace.createSpace.space!.id;
    await run(
      graphql(
        `mutation CoverageChangeRequestRules($s: ID!) { updateSpace(input: { spaceId: $s, mergeRules: { type: NONE } }) { userErrors { code } } }`,
      ),
      { s: crSpaceId },
    );
    const createdRequest = await run(
      graphql(`mutation CoverageCreateChangeRequest($s: ID!) {
      createChangeRequest(input: { spaceId: $s, subject: "Coverage" }) { changeRequest { id status } userErrors { code } }
    }`),
      { s: crSpaceId },
    );
    expect(createdRequest.createChangeRequest.changeRequest!.status).toBe('DRAFT');
    const cr = createdRequest.createChangeRequest.changeRequest!.id;
    const crWrites = await run(
      graphql(`mutation CoverageChangeRequestWrites($s: ID!, $cr: ID!, $cy: ID!, $finn: ID!) {
      updateChangeRequest(input: { changeRequestId: $cr, subject: "Coverage request" }) { changeRequest { subject } userErrors { code } }
      editChangeRequestContent(input: { changeRequestId: $cr, changes: [{ insertPage: { markdown: "# Coverage page" } }] }) { edits { kind } userErrors { code } }
      applySpaceTemplate(input: { spaceId: $s, templateId: "changelog" }) { userErrors { code } }
      requestChangeRequestReviewers(input: { changeRequestId: $cr, userIds: [$cy, $finn] }) { changeRequest { status } userErrors { code } }
      removeChangeRequestReviewer(input: { changeRequestId: $cr, userId: $finn }) { deleted userErrors { code } }
      updateChangeRequestFromMain(input: { changeRequestId: $cr }) { result userErrors { code } }
    }`),
      { s: crSpaceId, cr, cy: userId(DEMO.users.cy), finn: userId(DEMO.users.finn) },
    );
    expect(crWrites).toMatchObject({
      updateChangeRequest: { changeRequest: { subject: 'Coverage request' } },
      editChangeRequestContent: { edits: [{ kind: 'CREATED_PAGE' }] },
      requestChangeRequestReviewers: { changeRequest: { status: 'OPEN' } },
      removeChangeRequestReviewer: { deleted: true },
      updateChangeRequestFromMain: { result: 'UPDATED' },
    });
    await run(
      graphql(`mutation CoverageReviewChangeRequest($cr: ID!) {
      submitChangeRequestReview(input: { changeRequestId: $cr, status: APPROVED }) { review { status } userErrors { code } }
    }`),
      { cr },
      g.platform.token(DEMO.users.cy),
    );
    const crReads = await run(
      graphql(`query CoverageChangeRequestReads($s: ID!, $cr: ID!) {
      space(id: $s) {
        changeRequests { totalCount }
        changeRequest(id: $cr) {
          pdf { url }
          changes { changes { __typename } }
          reviews { totalCount }
          requestedReviewers { totalCount }
          contributors { totalCount }
        }
      }
      organization(id: "acme") { changeRequests { totalCount } }
    }`),
      { s: crSpaceId, cr },
    );
    expect(crReads.space!.changeRequests.totalCount).toBe(1);
    expect(crReads.space!.changeRequest!.reviews.totalCount).toBe(1);
    expect(crReads.space!.changeRequest!.changes.changes).toEqual([{ __typename: 'PageCreatedChange' }]);
    const merged = await run(
      graphql(`mutation CoverageMergeChangeRequest($cr: ID!) {
      mergeChangeRequest(input: { changeRequestId: $cr }) { result changeRequest { status } userErrors { code } }
    }`),
      { cr },
    );
    expect(merged.mergeChangeRequest).toMatchObject({ result: 'MERGED', changeRequest: { status: 'MERGED' } });

    // Git Sync: export to a local repository, import it back, read the state, remove the link.
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const bare = join(mkdtempSync(join(tmpdir(), 'coverage-git-')), 'repo.git');
    execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
    await run(
      graphql(`mutation CoverageExportToGit($s: ID!, $url: String!) {
      exportToGit(input: { spaceId: $s, url: $url, ref: "refs/heads/main", commitMessage: "Coverage" }) { operation { state } userErrors { code } }
    }`),
      { s: crSpaceId, url: bare },
    );
    await g.platform.app.jobs.drain();
    await run(
      graphql(`mutation CoverageImportFromGit($s: ID!, $url: String!) {
      importFromGit(input: { spaceId: $s, url: $url, ref: "refs/heads/main" }) { operation { state } userErrors { code } }
    }`),
      { s: crSpaceId, url: bare },
    );
    await g.platform.app.jobs.drain();
    const git = await run(
      graphql(`query CoverageGitInfo($s: ID!) { space(id: $s) { gitInfo { operation { state direction } } } }`),
      { s: crSpaceId },
    );
    expect(git.space!.gitInfo!.operation).toEqual({ state: 'SUCCESS', direction: 'IMPORT' });
    const removed = await run(
      graphql(
        `mutation CoverageRemoveGit($s: ID!) { removeLegacyGitInstallation(input: { spaceId: $s }) { deleted userErrors { code } } }`,
      ),
      {
        s: crSpaceId,
      },
    );
    expect(removed.removeLegacyGitInstallation.deleted).toBe(true);

    // Docs sites: a site is created with a space, read with its lists and structure, configured,
    // published and unpublished; its structure grows a site space, a section and a group, each
    // updated and moved (with the deprecated moves and with structure/sort); then all is deleted.
    const createdSite = await run(
      graphql(`mutation CoverageCreateSite($space: ID!) {
      createSite(input: { organizationId: "acme", title: "Coverage site", spaceIds: [$space] }) { site { id } userErrors { code } }
    }`),
      { space: g.platform.spaceId('Release notes') },
    );
    const site = createdSite.createSite.site!.id;
    const siteReads = await run(
      graphql(`query CoverageSiteReads($site: ID!) {
      organization(id: "acme") { sites(title: "coverage") { totalCount } }
      node(id: $site) {
        ... on Site { siteSpaces { totalCount } sections { totalCount } sectionGroups { totalCount } structure { __typename } }
      }
    }`),
      { site },
    );
    expect(siteReads.organization!.sites!.totalCount).toBe(1);
    await run(
      graphql(`mutation CoverageSiteWrites($site: ID!) {
      updateSite(input: { siteId: $site, title: "Coverage site 2" }) { site { title } userErrors { code } }
      publishSite(input: { siteId: $site }) { site { isPublished } userErrors { code } }
      unpublishSite(input: { siteId: $site }) { site { isPublished } userErrors { code } }
    }`),
      { site },
    );
    const addedSpace = await run(
      graphql(`mutation CoverageAddSpaceToSite($site: ID!, $space: ID!) {
      addSpaceToSite(input: { siteId: $site, spaceId: $space }) { siteSpace { id } userErrors { code } }
    }`),
      { site, space: g.platform.spaceId('Runbooks') },
    );
    const siteSpace = addedSpace.addSpaceToSite.siteSpace!.id;
    await run(
      graphql(`mutation CoverageSiteSpaceWrites($siteSpace: ID!) {
      updateSiteSpace(input: { siteSpaceId: $siteSpace, hidden: true }) { siteSpace { hidden } userErrors { code } }
      moveSiteSpace(input: { siteSpaceId: $siteSpace }) { siteSpace { path } userErrors { code } }
    }`),
      { siteSpace },
    );
    const addedSection = await run(
      graphql(`mutation CoverageCreateSiteSection($site: ID!, $space: ID!) {
      createSiteSection(input: { siteId: $site, spaceId: $space }) { siteSection { id } userErrors { code } }
    }`),
      { site, space: g.platform.spaceId('Company handbook') },
    );
    const section = addedSection.createSiteSection.siteSection!.id;
    const addedGroup = await run(
      graphql(`mutation CoverageCreateSiteSectionGroup($site: ID!, $section: ID!) {
      createSiteSectionGroup(input: { siteId: $site, title: "Coverage group", siteSectionIds: [$section] }) { siteSectionGroup { id } userErrors { code } }
    }`),
      { site, section },
    );
    const group = addedGroup.createSiteSectionGroup.siteSectionGroup!.id;
    await run(
      graphql(`mutation CoverageSiteSectionWrites($section: ID!, $group: ID!, $siteSpace: ID!) {
      updateSiteSection(input: { siteSectionId: $section, description: "Covered" }) { siteSection { description } userErrors { code } }
      moveSiteSection(input: { siteSectionId: $section }) { siteSection { path } userErrors { code } }
      updateSiteSectionGroup(input: { siteSectionGroupId: $group, icon: "folder" }) { siteSectionGroup { icon } userErrors { code } }
      moveSiteSectionGroup(input: { siteSectionGroupId: $group }) { siteSectionGroup { title } userErrors { code } }
      sortSiteStructure(input: { itemId: $siteSpace }) { siteSpace { path } userErrors { code } }
    }`),
      { section, group, siteSpace },
    );
    // Who may read it: share links, visitor authentication, the adaptive schema, the profile; and URLs.
    await run(
      graphql(`query CoverageSiteAccessReads($site: ID!) {
      node(id: $site) { ... on Site { shareLinks { totalCount } visitorAuth { backend } published { scripts { url } } } }
    }`),
      { site },
    );
    const accessWrites = await run(
      graphql(`mutation CoverageSiteAccessWrites($site: ID!, $schema: JSON!) {
      createSiteShareLink(input: { siteId: $site, name: "Coverage" }) { shareLink { id } userErrors { code } }
      updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, logoutUrl: "https://example.com/logout" }) { visitorAuth { logoutUrl } userErrors { code } }
      regenerateSiteVisitorAuthKey(input: { siteId: $site }) { visitorAuth { backend } userErrors { code } }
      updateSiteAdaptiveSchema(input: { siteId: $site, jsonSchema: $schema }) { adaptiveSchema { templateConditions { condition } } userErrors { code } }
    }`),
      {
        site,
        schema: {
          type: 'object',
          properties: { beta: { type: 'boolean', description: 'Beta' } },
          additionalProperties: false,
        },
      },
    );
    const shareLink = accessWrites.createSiteShareLink.shareLink!.id;
    await run(
      graphql(
        `query CoverageAdaptiveSchema($site: ID!) { node(id: $site) { ... on Site { adaptiveSchema { updatedAt } } } }`,
      ),
      { site },
    );
    await run(
      graphql(`mutation CoverageShareLinkWrites($link: ID!) {
      updateSiteShareLink(input: { shareLinkId: $link, name: "Covered" }) { shareLink { name } userErrors { code } }
      deleteSiteShareLink(input: { shareLinkId: $link }) { deleted userErrors { code } }
    }`),
      { link: shareLink },
    );
    const published = `${new URL(g.platform.url).origin}/published/acme-docs`;
    await run(
      graphql(`query CoverageUrls($published: String!, $app: String!, $token: String!) {
      anonymous: resolveUrl(url: $published) { __typename }
      visitor: resolveUrl(url: "https://api.acme-docs.test/", visitor: { jwtToken: $token }) { __typename }
      app: resolveUrl(url: $app) { __typename }
      embedUrl(url: $published) { title }
    }`),
      {
        published,
        app: `${new URL(g.platform.url).origin}/app/s/${g.platform.spaceId('Release notes')}`,
        token: DEMO_SITE_SECRETS.visitorToken,
      },
    );

    // SAML: a provider created, read alone and in the list, updated and deleted; the SSO logins.
    const saml = await run(
      graphql(
        `mutation CoverageCreateSaml { createSamlProvider(input: { organizationId: "globex", label: "Coverage" }) { provider { id } userErrors { code } } }`,
      ),
    );
    const provider = saml.createSamlProvider.provider!.id;
    await run(
      graphql(`query CoverageSamlReads($id: ID!) {
      organization(id: "globex") { samlProviders { totalCount } ssoProviders { label } }
      node(id: $id) { ... on SamlProvider { label } }
    }`),
      { id: provider },
    );
    await run(
      graphql(`mutation CoverageSamlWrites($id: ID!) {
      updateSamlProvider(input: { providerId: $id, label: "Covered" }) { provider { label } userErrors { code } }
      deleteSamlProvider(input: { providerId: $id }) { deleted userErrors { code } }
    }`),
      { id: provider },
    );

    // Custom fonts: a file uploaded (a multipart request), a font created from it, read alone and
    // in the list, changed and deleted.
    const form = new FormData();
    const upload =
      'mutation CoverageUpload($file: Upload!) { uploadFile(input: { organizationId: "globex", kind: CUSTOMIZATION_FONT, file: $file }) { file { key } userErrors { code } } }';
    form.append('operations', JSON.stringify({ query: upload, variables: { file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append(
      '0',
      new Blob([new Uint8Array(minimalWoff2('Coverage', 400))], { type: 'font/woff2' }),
      'coverage.woff2',
    );
    g.platform.app.stats.reset();
    const uploaded = (await (
      await g.gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${g.platform.adminToken}` },
        body: form,
      })
    ).json()) as any;
    answered.push(...g.platform.app.stats.answers);
    expect(uploaded.data.uploadFile.userErrors).toEqual([]);
    const fonts = await run(
      graphql(`mutation CoverageCreateFont($key: String!) {
      createCustomFont(input: { organizationId: "globex", fontFamily: "Coverage", fontFaces: [{ weight: 400, storageKey: $key }] }) { font { id } userErrors { code } }
    }`),
      { key: uploaded.data.uploadFile.file.key },
    );
    const font = fonts.createCustomFont.font!.id;
    await run(
      graphql(`query CoverageFontReads($id: ID!) {
      organization(id: "globex") { fonts { totalCount } }
      node(id: $id) { ... on CustomFont { fontFamily } }
    }`),
      { id: font },
    );
    await run(
      graphql(`mutation CoverageFontWrites($id: ID!) {
      updateCustomFont(input: { fontId: $id, fontFamily: "Covered" }) { font { fontFamily } userErrors { code } }
      deleteCustomFont(input: { fontId: $id }) { deleted userErrors { code } }
    }`),
      { id: font },
    );

    // Translations: one created, read alone and in the list, changed, run and deleted.
    const translations = await run(
      graphql(`mutation CoverageCreateTranslation($space: ID!) {
      createTranslation(input: { organizationId: "acme", language: "es", source: { spaceId: $space, language: "en" } }) { translation { id } userErrors { code } }
    }`),
      { space: g.platform.spaceId('Getting started') },
    );
    const translation = translations.createTranslation.translation!.id;
    await run(
      graphql(`query CoverageTranslationReads($id: ID!) {
      organization(id: "acme") { translations { totalCount } }
      node(id: $id) { ... on Translation { status } }
    }`),
      { id: translation },
    );
    await run(
      graphql(`mutation CoverageTranslationWrites($id: ID!) {
      updateTranslation(input: { translationId: $id, instructions: { text: "Covered" } }) { translation { status } userErrors { code } }
      runTranslation(input: { translationId: $id }) { translation { status } userErrors { code } }
    }`),
      { id: translation },
    );
    await g.platform.app.jobs.drain();
    await run(
      graphql(
        `mutation CoverageTranslationDelete($id: ID!) { deleteTranslation(input: { translationId: $id }) { deleted userErrors { code } } }`,
      ),
      { id: translation },
    );

    // OpenAPI: a specification created, read with its versions and their content, updated, made
    // public and deleted; computed content of a space.
    await run(
      graphql(`mutation CoverageCreateSpec($text: String!) {
      createOpenApiSpec(input: { organizationId: "acme", slug: "coverage", source: { text: $text } }) { spec { id } userErrors { code } }
    }`),
      {
        text: 'openapi: 3.1.0\ninfo:\n  title: Coverage\n  version: "1"\npaths:\n  /a:\n    get:\n      tags: [a]\n      responses:\n        "200":\n          description: OK\n',
      },
    );
    await g.platform.app.jobs.drain();
    const specReads = await run(
      graphql(`query CoverageSpecReads {
      organization(id: "acme") {
        openApiSpecs { totalCount }
        openApiSpec(slug: "coverage") { document content lastVersion { platformId createdAt } versions { nodes { platformId content } } }
      }
    }`),
    );
    const versionId = specReads.organization!.openApiSpec!.versions.nodes[0]!.platformId;
    await run(
      graphql(
        `query CoverageSpecVersion($id: ID!) { organization(id: "acme") { openApiSpec(slug: "coverage") { version(id: $id) { createdAt } } } }`,
      ),
      { id: versionId },
    );
    await run(
      graphql(`query CoverageComputed($space: ID!) { space(id: $space) {
      computedRevision(source: { openApi: { spec: "coverage" } }, seed: "c") { title }
      computedDocument(source: { openApi: { spec: "coverage", doc: MODELS } }, seed: "c") { json }
    } }`),
      { space: g.platform.spaceId('Petstore API') },
    );
    await run(
      graphql(`mutation CoverageSpecWrites($text: String!) {
      updateOpenApiSpec(input: { organizationId: "acme", slug: "coverage", source: { text: $text } }) { created userErrors { code } }
      setOpenApiSpecVisibility(input: { organizationId: "acme", slug: "coverage", visibility: PUBLIC }) { spec { visibility } userErrors { code } }
      deleteOpenApiSpec(input: { organizationId: "acme", slug: "coverage" }) { deleted userErrors { code } }
    }`),
      { text: 'openapi: 3.1.0\ninfo: { title: C, version: "2" }\npaths: {}\n' },
    );
    await g.platform.app.jobs.drain();

    // Conversations: ingested, listed and read with their issues and clusters; a cluster muted.
    await run(
      graphql(`mutation CoverageIngest {
      ingestConversations(input: { organizationId: "acme", conversations: [{ id: "coverage-1", source: "coverage", parts: [{ role: "user", body: "The installer fails with permission denied." }] }] }) { ingested userErrors { code } }
    }`),
    );
    const conversations = await run(
      graphql(`query CoverageConversations {
      organization(id: "acme") {
        conversations(source: "coverage") { nodes { id parts { body } } }
        conversationIssues(first: 1) { nodes { id title } }
        issuesClusters(first: 1) { nodes { id platformId } }
      }
    }`),
    );
    const coverageOrg = conversations.organization!;
    await run(
      graphql(`query CoverageConversationNodes($conversation: ID!, $issue: ID!, $cluster: ID!) {
      conversation: node(id: $conversation) { ... on Conversation { metadata { attributes } } }
      issue: node(id: $issue) { ... on ConversationIssue { impact } }
      cluster: node(id: $cluster) { ... on IssuesCluster { label } }
    }`),
      {
        conversation: coverageOrg.conversations!.nodes[0]!.id,
        issue: coverageOrg.conversationIssues!.nodes[0]!.id,
        cluster: coverageOrg.issuesClusters!.nodes[0]!.id,
      },
    );
    await run(
      graphql(`mutation CoverageMute($id: ID!) {
      mute: setIssuesClusterMuted(input: { clusterId: $id, muted: true }) { cluster { muted } userErrors { code } }
    }`),
      { id: coverageOrg.issuesClusters!.nodes[0]!.id },
    );
    await run(
      graphql(
        `mutation CoverageUnmute($id: ID!) { setIssuesClusterMuted(input: { clusterId: $id, muted: false }) { cluster { muted } userErrors { code } } }`,
      ),
      { id: coverageOrg.issuesClusters!.nodes[0]!.id },
    );

    // Integrations: published, installed on the organization, a space and a site, changed, read
    // with their events, and removed.
    const integrationSpace = g.platform.spaceId('Getting started');
    const coverageSite = (
      await run(
        graphql(`query CoverageIntegrationSite { organization(id: "acme") { sites(first: 1) { nodes { id } } } }`),
      )
    ).organization!.sites!.nodes[0]!.id;
    await run(
      graphql(`mutation CoveragePublish {
      publishIntegration(input: { name: "coverage", organizationId: "acme", title: "Coverage", description: "Covers.", script: "export default {}", scopes: [], visibility: PUBLIC }) { integration { name } userErrors { code } }
    }`),
    );
    const installed = await run(
      graphql(
        `mutation CoverageInstall { installIntegration(input: { integrationName: "coverage", organizationId: "acme" }) { installation { id } userErrors { code } } }`,
      ),
    );
    const installationId = installed.installIntegration.installation!.id;
    await run(
      graphql(`mutation CoverageInstallOn($installation: ID!, $space: ID!, $site: ID!) {
      installIntegrationOnSpace(input: { installationId: $installation, spaceId: $space }) { spaceInstallation { status } userErrors { code } }
      installIntegrationOnSite(input: { installationId: $installation, siteId: $site }) { siteInstallation { status } userErrors { code } }
      updateIntegrationInstallation(input: { installationId: $installation, externalIds: ["c"] }) { installation { status } userErrors { code } }
      updateIntegrationSpaceInstallation(input: { installationId: $installation, spaceId: $space, externalIds: ["c"] }) { spaceInstallation { status } userErrors { code } }
      updateIntegrationSiteInstallation(input: { installationId: $installation, siteId: $site, externalIds: ["c"] }) { siteInstallation { status } userErrors { code } }
    }`),
      { installation: installationId, space: integrationSpace, site: coverageSite },
    );
    await g.platform.app.jobs.drain();
    const integrationReads = await run(
      graphql(`query CoverageIntegrationReads($installation: ID!, $space: ID!, $site: ID!) {
      integrations { totalCount }
      integration(name: "coverage") {
        installations { totalCount }
        spaceInstallations { totalCount }
        siteInstallations { totalCount }
        events(first: 1) { nodes { id } }
      }
      node(id: $installation) {
        ... on IntegrationInstallation {
          status
          spaceInstallations { totalCount }
          siteInstallations { totalCount }
          spaceInstallation(spaceId: $space) { status }
          siteInstallation(siteId: $site) { status }
        }
      }
    }`),
      { installation: installationId, space: integrationSpace, site: coverageSite },
    );
    await run(
      graphql(
        `query CoverageIntegrationEvent($id: ID!) { node(id: $id) { ... on IntegrationEvent { trace { message } } } }`,
      ),
      { id: integrationReads.integration!.events!.nodes[0]!.id },
    );
    await run(
      graphql(`mutation CoverageUninstall($installation: ID!, $space: ID!, $site: ID!) {
      uninstallIntegrationFromSpace(input: { installationId: $installation, spaceId: $space }) { deleted userErrors { code } }
      uninstallIntegrationFromSite(input: { installationId: $installation, siteId: $site }) { deleted userErrors { code } }
      uninstallIntegration(input: { installationId: $installation }) { deleted userErrors { code } }
      unpublishIntegration(input: { name: "coverage" }) { deleted userErrors { code } }
    }`),
      { installation: installationId, space: integrationSpace, site: coverageSite },
    );

    const siteDeletes = await run(
      graphql(`mutation CoverageSiteDeletes($site: ID!, $section: ID!, $group: ID!, $siteSpace: ID!) {
      deleteSiteSpace(input: { siteSpaceId: $siteSpace }) { deleted userErrors { code } }
      deleteSiteSectionGroup(input: { siteSectionGroupId: $group }) { deleted userErrors { code } }
      deleteSiteSection(input: { siteSectionId: $section }) { deleted userErrors { code } }
      deleteSite(input: { siteId: $site }) { deleted userErrors { code } }
    }`),
      { site, section, group, siteSpace },
    );
    expect(siteDeletes).toEqual({
      deleteSiteSpace: { deleted: true, userErrors: [] },
      deleteSiteSectionGroup: { deleted: true, userErrors: [] },
      deleteSiteSection: { deleted: true, userErrors: [] },
      deleteSite: { deleted: true, userErrors: [] },
    });

    const unreached = OPERATIONS.filter(
      (operation) =>
        !answered.some(
          (answer) =>
            answer.method === operation.method &&
            matcher(operation.path).test(answer.url) &&
            answer.status >= 200 &&
            answer.status < 300,
        ),
    ).map((operation) => `${operation.method} ${operation.path}`);
    expect(unreached).toEqual([]);
    // Every operation of the API's inventory (the 176 of endpoints.json), and the others the graph uses.
    expect(OPERATIONS.filter((operation) => !('extra' in operation)).length).toBe(176);
    expect(OPERATIONS.length).toBe(210);
  });
});
