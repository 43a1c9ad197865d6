-- mm 0.1.0 -> 0.2.0 upgrade.
--
-- Every change to SQL objects made after 0.1.0 is here, data migration
-- included, in the same order as the install script that builds 0.2.0
-- (sql/mm.sql then sql/parts/*.sql). The upgrade suite
-- (test/suites/upgrade.sh) proves that a database upgraded with this file
-- has the same catalog as a fresh 0.2.0 install.

\echo Use "ALTER EXTENSION mm UPDATE TO '0.2.0'" to load this file. \quit
