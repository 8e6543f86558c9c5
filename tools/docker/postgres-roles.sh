#!/usr/bin/env bash
# Run once by the postgres image when its volume is first initialised (/docker-entrypoint-initdb.d), as the superuser.
# Each service gets a role of its own, none a superuser, none able to create roles or databases:
# - once_api owns what it migrates (API keys, menu, outbox, webhook inbox) and reads the projector's read models;
# - once_projector owns the read models and their checkpoints, and changes rows of the api's tables (the webhook
#   relay marks outbox messages delivered, the completer finishes commands) without owning or altering them;
# - once_kitchen has a database of its own (once_kitchen) and nothing in $POSTGRES_DB.
# Both services record their migrations in once_migrations, made here so neither depends on the other to start.
set -euo pipefail

psql --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v ON_ERROR_STOP=1 \
  -v db="$POSTGRES_DB" \
  -v api_password="$ONCE_API_POSTGRES_PASSWORD" \
  -v projector_password="$ONCE_PROJECTOR_POSTGRES_PASSWORD" \
  -v kitchen_password="$ONCE_KITCHEN_POSTGRES_PASSWORD" <<'SQL'
CREATE ROLE once_api LOGIN PASSWORD :'api_password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
CREATE ROLE once_projector LOGIN PASSWORD :'projector_password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
CREATE ROLE once_kitchen LOGIN PASSWORD :'kitchen_password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;

REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO once_api, once_projector;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO once_api, once_projector;

CREATE TABLE once_migrations (
  component text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (component, version));
GRANT SELECT, INSERT ON once_migrations TO once_api, once_projector;

ALTER DEFAULT PRIVILEGES FOR ROLE once_api IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO once_projector;
ALTER DEFAULT PRIVILEGES FOR ROLE once_api IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO once_projector;
ALTER DEFAULT PRIVILEGES FOR ROLE once_projector IN SCHEMA public
  GRANT SELECT ON TABLES TO once_api;

CREATE DATABASE once_kitchen OWNER once_kitchen;
REVOKE ALL ON DATABASE once_kitchen FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE once_kitchen TO once_kitchen;
SQL
