import { specifiedDirectives } from 'graphql';
import { builder } from './kit/builder.js';
import { deferDirective, streamDirective } from './kit/directives.js';
// The kit's types every domain shares (the schema sorts its types, so the order is free).
import './kit/enums.js';
import './kit/user-errors.js';
import './kit/document.js';
import './users.js';
import './organizations.js';
import './collections.js';
import './spaces.js';
import './content/index.js';
import './change-requests/index.js';
import './comments.js';
import './git.js';
import './sites/index.js';
import './urls.js';
import './embeds.js';
import './saml.js';
import './fonts.js';
import './translations.js';
import './glossary.js';
import './openapi.js';
import './conversations.js';
import './integrations.js';
import './integration-development.js';
import './integration-blocks.js';
import './integration-tokens.js';
import './teams.js';
import './members.js';
import './invites.js';
import './audit.js';
import './rate-limit.js';
import './system.js';
import './kit/nodes.js';

/** The whole schema, built from every domain module. */
export const schema = builder.toSchema({ directives: [...specifiedDirectives, deferDirective, streamDirective] });
