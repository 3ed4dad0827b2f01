export { user, type User } from './common.js';
