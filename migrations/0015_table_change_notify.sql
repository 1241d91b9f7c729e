-- Read caches (src/adapters/db/read-cache.ts) keep rows of these tables until they change: every change,
-- from any process or by hand, sends a NOTIFY on switchboard_tables naming its table when its transaction
-- commits (PostgreSQL folds identical notifications of one transaction into one).
CREATE FUNCTION switchboard_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('switchboard_tables', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER organizations_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organizations FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER org_members_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON org_members FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER people_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON people FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER workspaces_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER workspace_members_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspace_members FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER agents_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON agents FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER agent_memberships_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON agent_memberships FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER bridges_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON bridges FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER channel_listeners_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON channel_listeners FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
--> statement-breakpoint
CREATE TRIGGER external_identities_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON external_identities FOR EACH STATEMENT EXECUTE FUNCTION switchboard_table_changed();
