import { z } from 'zod';
import { dateTime, document, url, user } from './common.js';
import { revisionFile } from './content.js';

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;

export const changeRequest = z.object({
  object: z.literal('change-request').optional(),
  id: z.string(),
  number: z.number().int(),
  status: z.enum(CHANGE_REQUEST_STATUSES),
  subject: z.string().default(''),
  description: document.nullish(),
  createdBy: user,
  createdAt: dateTime,
  updatedAt: dateTime,
  mergedBy: user.nullish(),
  mergedAt: dateTime.nullish(),
  space: z.string(),
  revision: z.string(),
  revisionInitial: z.string(),
  revisionMergedAncestor: z.string().nullish(),
  revisionMerged: z.string().nullish(),
  comments: z.number().int().default(0),
  outdated: z.boolean(),
  conversationsIssuesCluster: z.string().nullish(),
  urls: z.object({ app: url.nullish(), location: url.nullish() }).partial().default({}),
});
export type ChangeRequest = z.infer<typeof changeRequest>;

export const review = z.object({
  id: z.string(),
  revision: z.string(),
  reviewer: user,
  requestedBy: user.nullish(),
  status: z.enum(REVIEW_STATUSES),
  outdated: z.boolean(),
  comment: z.object({ body: document.nullish() }).passthrough().nullish(),
  createdAt: dateTime,
  updatedAt: dateTime,
});
export type Review = z.infer<typeof review>;

export const requestedReviewer = z.object({
  kind: z.enum(['user', 'team']),
  user: user.nullish(),
  team: z.object({ id: z.string(), title: z.string() }).passthrough().nullish(),
  revision: z.string(),
  requestedBy: user,
  createdAt: dateTime,
});
export type RequestedReviewer = z.infer<typeof requestedReviewer>;

export const requestedReviewers = z.object({ users: z.array(requestedReviewer) });

export const contributor = z.object({
  user,
  actionType: z.enum(['edit', 'comment']),
  count: z.number().int(),
  updatedAt: dateTime,
});
export type Contributor = z.infer<typeof contributor>;

export const mergeConflict = z.object({
  page: z.string().optional(),
  block: z.string().optional(),
  property: z.string().optional(),
  file: z.string().optional(),
  reusableContent: z.string().optional(),
  variable: z.string().optional(),
});
export type MergeConflict = z.infer<typeof mergeConflict>;

/** The answer of a merge or an update: the revision it made (or the request's, with conflicts). */
export const mergeResult = z.object({
  revision: z.string(),
  result: z.enum(['merge', 'update', 'conflicts']),
  conflicts: z.array(mergeConflict).default([]),
});

export const contentUpdate = z.object({
  changeRequest,
  changes: z.array(
    z.discriminatedUnion('object', [
      z.object({
        object: z.literal('created_page'),
        ref: z.string().optional(),
        page: z.object({ id: z.string() }).passthrough(),
      }),
      z.object({ object: z.literal('updated_page'), page: z.object({ id: z.string() }).passthrough() }),
      z.object({ object: z.literal('deleted_page'), page: z.string() }),
    ]),
  ),
  insertedFiles: z.array(revisionFile).default([]),
});
export type ContentUpdate = z.infer<typeof contentUpdate>;
