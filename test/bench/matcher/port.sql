-- The Guild Wars 2 wiki's matcher pseudo-code (createMatches, withdrawRosters,
-- gatherPotentials, populateMatch, shouldPopulateRed, pickRoster,
-- scoreRoster) ported literally to PL/pgSQL, with the readings of
-- docs/architecture.md, "How mm reads its sources" that mm takes (see src/matcher/matcher.c): the baseline of
-- the matcher benchmark, and the reference test/sql/matcher_port.sql
-- compares mm.match_rosters with. Every target scans the whole queue for
-- potentials, as the GW2 wiki page does.
--
-- Same input as mm.match_rosters: a query with roster_id, players, rating,
-- deviation, rank, ladder_points, dishonor, professions, joined_at, in
-- queue order. Rosters have at most 5 players (professions are kept 5 per
-- roster in one flat array). Returns the matches: match_no, roster_id,
-- team; and the failed targets with team 'failed'.
CREATE SCHEMA gw2_port;

CREATE FUNCTION gw2_port.match_rosters(rosters text, config jsonb, at timestamptz)
RETURNS TABLE (match_no int, roster_id bigint, team text)
LANGUAGE plpgsql AS $$
DECLARE
    c jsonb := mm.matcher_config(config);
    team_size int := (c ->> 'team_size')::int;
    n_targets int := (c #>> '{filter,rosters}')::int;
    pmax int := (c #>> '{filter,potentials_max}')::int;
    -- null: twice a match's players (the GW2 wiki's 20 at 5v5)
    pmin int := coalesce((c #>> '{filter,potentials_min}')::int, least(4 * team_size, pmax));
    -- null: the rating model's scale (mm.rating_scales)
    scale record := (SELECT x FROM mm.rating_scales() x WHERE x.model = c #>> '{rating,model}');
    padding float8 := coalesce((c #>> '{filter,padding}')::float8, scale.padding);
    kdev float8 := coalesce((c #>> '{filter,deviations}')::float8, scale.deviations);
    pstart float8 := (c #>> '{filter,padding_start}')::float8;
    pend float8 := (c #>> '{filter,padding_end}')::float8;
    per_match bool := (c #>> '{scoring,type}') = 'match';
    w_age float8 := (c #>> '{scoring,age}')::float8;
    w_size float8 := (c #>> '{scoring,roster_size_distance}')::float8;
    w_fit float8 := (c #>> '{scoring,perfect_fit}')::float8;
    w_rank float8 := (c #>> '{scoring,rank_distance}')::float8;
    w_rating float8 := coalesce((c #>> '{scoring,rating_distance}')::float8, scale.rating_distance);
    w_ladder float8 := (c #>> '{scoring,ladder_distance}')::float8;
    prof_max int := (c #>> '{scoring,profession_max}')::int;
    w_common float8 := (c #>> '{scoring,profession_common}')::float8;
    w_unique float8 := (c #>> '{scoring,profession_unique}')::float8;
    w_dis float8 := (c #>> '{scoring,dishonor_distance}')::float8;
    w_stack float8 := (c #>> '{scoring,dishonor_stack}')::float8;
    ids bigint[]; np int[]; rating float8[]; dev float8[]; rl float8[]; lo float8[]; hi float8[];
    rk float8[]; lad float8[]; dis float8[]; age float8[]; profs text[];
    n int;
    in_queue bool[];
    chosen bool[];
    potentials int[];
    failed int := 0;
    made int := 0;
    -- teams: index 1 red, 2 blue
    t_players int[]; t_rl float8[]; t_rank float8[]; t_dis float8[];
    t_members int[];          -- roster index per member
    t_side int[];             -- side per member
    t_profs text[];           -- professions on each team: 'side:profession'
    pad float8;
    target int;
    side int;
    best int;
    best_score float8;
    score float8;
    needed int;
    max_size int;
    max_ladder float8;
    team_rl float8; team_rank float8; team_dis float8;
    cnt int;
    p text;
    tp text;
    i int; j int; k int;
BEGIN
    EXECUTE 'WITH x AS (SELECT q.*, row_number() OVER () AS ord FROM (' || rosters || ') q)
        SELECT array_agg(roster_id ORDER BY ord), array_agg(cardinality(players) ORDER BY ord),
               array_agg(rating::float8 ORDER BY ord), array_agg(deviation::float8 ORDER BY ord),
               array_agg(rank::float8 ORDER BY ord), array_agg(ladder_points::float8 ORDER BY ord),
               array_agg(dishonor::float8 ORDER BY ord),
               array_agg(greatest(0, extract(epoch FROM $1 - joined_at)::float8) ORDER BY ord),
               (SELECT array_agg(professions[s] ORDER BY ord, s) FROM x, generate_series(1, 5) s)
        FROM x'
    INTO ids, np, rating, dev, rk, lad, dis, age, profs
    USING at;
    n := coalesce(cardinality(ids), 0);
    IF n = 0 THEN
        RETURN;
    END IF;
    rl := array_fill(0::float8, ARRAY[n]); lo := rl; hi := rl;
    in_queue := array_fill(true, ARRAY[n]);
    chosen := array_fill(false, ARRAY[n]);
    FOR i IN 1 .. n LOOP
        pad := least(age[i], pend) - pstart;
        pad := CASE WHEN pad > 0 THEN pad * padding ELSE 0 END;
        rl[i] := rating[i] - dev[i];
        lo[i] := rating[i] - kdev * dev[i] - pad;
        hi[i] := rating[i] + kdev * dev[i] + pad;
    END LOOP;

    -- createMatches: targets are the first n_targets rosters, in queue order
    FOR target IN 1 .. least(n, n_targets) LOOP
        CONTINUE WHEN NOT in_queue[target];
        in_queue[target] := false;                  -- queue.remove(roster)
        -- gatherPotentials
        potentials := '{}';
        FOR i IN 1 .. n LOOP
            CONTINUE WHEN NOT in_queue[i];
            CONTINUE WHEN lo[i] > hi[target];
            CONTINUE WHEN hi[i] < lo[target];
            potentials := potentials || i;
            EXIT WHEN cardinality(potentials) >= pmax;
        END LOOP;
        t_players := ARRAY[0, 0]; t_rl := ARRAY[0, 0]::float8[]; t_rank := ARRAY[0, 0]::float8[];
        t_dis := ARRAY[0, 0]::float8[]; t_members := '{}'; t_side := '{}'; t_profs := '{}';
        -- potentials_min holds only until the target has waited padding_end
        IF np[target] <= team_size AND (cardinality(potentials) >= pmin OR age[target] >= pend) THEN
            -- populateMatch: the target goes to red
            side := 1; best := target;
            LOOP
                -- add "best" to "side"
                t_players[side] := t_players[side] + np[best];
                t_rl[side] := t_rl[side] + rl[best] * np[best];
                t_rank[side] := t_rank[side] + rk[best] * np[best];
                t_dis[side] := t_dis[side] + dis[best];
                t_members := t_members || best; t_side := t_side || side;
                FOR k IN 1 .. 5 LOOP
                    IF profs[(best - 1) * 5 + k] IS NOT NULL THEN
                        t_profs := t_profs || (side || ':' || profs[(best - 1) * 5 + k]);
                    END IF;
                END LOOP;
                chosen[best] := true;
                IF best = target THEN
                    max_size := np[best]; max_ladder := lad[best];
                ELSE
                    max_ladder := greatest(max_ladder, lad[best]);
                    max_size := greatest(max_size, np[best]);
                END IF;
                EXIT WHEN t_players[1] >= team_size AND t_players[2] >= team_size;
                -- shouldPopulateRed (an empty blue goes first)
                IF t_players[1] >= team_size THEN side := 2;
                ELSIF t_players[2] >= team_size THEN side := 1;
                ELSIF t_players[2] = 0 THEN side := 2;
                ELSIF t_rl[1] / t_players[1] < t_rl[2] / t_players[2] THEN side := 1;
                ELSE side := 2;
                END IF;
                IF t_players[side] > 0 THEN
                    team_rl := t_rl[side] / t_players[side];
                    team_rank := t_rank[side] / t_players[side];
                    team_dis := t_dis[side];
                ELSE
                    team_rl := (t_rl[1] + t_rl[2]) / (t_players[1] + t_players[2]);
                    team_rank := (t_rank[1] + t_rank[2]) / (t_players[1] + t_players[2]);
                    team_dis := t_dis[1] + t_dis[2];
                END IF;
                -- pickRoster
                needed := team_size - t_players[side];
                best := NULL;
                FOREACH i IN ARRAY potentials LOOP
                    CONTINUE WHEN chosen[i] OR np[i] > needed;
                    -- scoreRoster
                    score := 0;
                    score := score + age[i] * w_age;
                    score := score + abs(team_rl - rl[i]) * w_rating;
                    score := score + abs(team_rank - rk[i]) * w_rank;
                    score := score + abs(max_ladder - lad[i]) * w_ladder;
                    score := score + abs(max_size - np[i]) * w_size;
                    IF np[i] = max_size THEN
                        score := score + w_fit;
                    END IF;
                    score := score + abs(team_dis - dis[i]) * w_dis;
                    score := score + dis[i] * w_stack;
                    FOR k IN 1 .. 5 LOOP
                        p := profs[(i - 1) * 5 + k];
                        CONTINUE WHEN p IS NULL;
                        -- each profession once, in order of first appearance
                        CONTINUE WHEN k > 1 AND p = ANY (profs[(i - 1) * 5 + 1:(i - 1) * 5 + k - 1]);
                        -- roster.countProfessions + team.countProfessions
                        cnt := 0;
                        FOR j IN (i - 1) * 5 + 1 .. (i - 1) * 5 + 5 LOOP
                            IF profs[j] = p THEN cnt := cnt + 1; END IF;
                        END LOOP;
                        FOREACH tp IN ARRAY t_profs LOOP
                            IF tp = side || ':' || p OR (per_match AND tp = (3 - side) || ':' || p) THEN
                                cnt := cnt + 1;
                            END IF;
                        END LOOP;
                        IF cnt >= prof_max THEN
                            score := score + (cnt - (prof_max - 1)) * w_common;
                        ELSE
                            score := score + (prof_max - cnt) * w_unique;
                        END IF;
                    END LOOP;
                    IF best IS NULL OR best_score < score THEN
                        best := i; best_score := score;
                    END IF;
                END LOOP;
                EXIT WHEN best IS NULL;
            END LOOP;
        END IF;
        FOREACH i IN ARRAY t_members LOOP
            chosen[i] := false;
        END LOOP;
        IF t_players[1] = team_size AND t_players[2] = team_size THEN
            made := made + 1;
            FOR j IN 1 .. cardinality(t_members) LOOP
                in_queue[t_members[j]] := false;
                match_no := made; roster_id := ids[t_members[j]];
                team := CASE WHEN t_side[j] = 1 THEN 'red' ELSE 'blue' END;
                RETURN NEXT;
            END LOOP;
        ELSE
            failed := failed + 1;
            match_no := failed; roster_id := ids[target]; team := 'failed';
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;
