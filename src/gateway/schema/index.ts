import { builder } from './builder.js';
import './shared.js';
import './users.js';
import './organizations.js';

/** The whole schema, built from every domain module. */
export const schema = builder.toSchema();
