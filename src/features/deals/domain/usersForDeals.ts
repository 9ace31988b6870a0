/**
 * What deals' domain knows of users beyond the summaries its events embed: that a
 * user was erased (`UserErased`), after which every deal assigned to them shows no
 * user (see `dealsProjection`) and their values leave deals' webhook events.
 */
export { UserErased } from '../../users/index.js';
