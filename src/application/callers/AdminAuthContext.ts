/** Who is calling the admin API: set by its authentication on `ctx.state.admin`. Never the token itself. */
export interface AdminAuthContext {
  readonly tokenId: string;
  readonly name: string;
}
