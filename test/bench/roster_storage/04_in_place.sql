-- in_place: matches inserted, matched rosters updated in place with their match (foreign key), players untouched
SELECT format('SET search_path = p_in_place_%s', nextval('public.run_in_place'))
\gexec
WITH m AS (
    INSERT INTO match (match_id, queue_id, prediction)
    SELECT DISTINCT b.match_id, 1, 0 FROM burst b
)
UPDATE roster r SET match_id = b.match_id, team = b.team FROM burst b WHERE r.roster_id = b.roster_id;
