-- The PostgreSQL role and database of rescued, with the least the daemon needs: a login role
-- that owns its own database (the daemon applies its migrations at start, so it creates
-- tables, indexes and the "drizzle" schema of the migration journal there), and nothing
-- more: no SUPERUSER, CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS. Nobody else may connect.
-- Run as a superuser (docs/operations.md, "Install"):
--   sudo -u postgres psql -v role=rescued -v db=rescued -v password="$(cat pw)" -f systemd/postgres-setup.sql
-- PostgreSQL 15 or later: its public schema belongs to the database's owner (pg_database_owner),
-- so owning the database is enough to create tables in it (the role must INHERIT, the default, to
-- use pg_database_owner's rights). On 14 or older, also run
--   ALTER SCHEMA public OWNER TO rescued;  in that database.
\set ON_ERROR_STOP on
CREATE ROLE :"role" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
CREATE DATABASE :"db" OWNER :"role" ENCODING 'UTF8' TEMPLATE template0;
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
