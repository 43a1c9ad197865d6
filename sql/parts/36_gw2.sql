
-- GW2 match prediction (the Guild Wars 2 wiki's PvP matchmaking page, "Match Prediction") and ladder points
-- (the Guild Wars 2 wiki's PvP matchmaking page, "Ladder").

-- @access public
CREATE FUNCTION mm.prediction_config_defaults()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN '{"rank":   {"method": "spread", "spread": 40,  "weight": 1, "enabled": true},
         "rating": {"method": "spread", "spread": 200, "weight": 5, "enabled": true},
         "roster": {"method": "spread", "spread": 4,   "weight": 2, "enabled": true}}'::jsonb;
COMMENT ON FUNCTION mm.prediction_config_defaults IS
    'the GW2 wiki''s <Prediction> config: rank spread 40 weight 1, rating spread 200 weight 5, roster spread 4 weight 2';

-- @access public
CREATE FUNCTION mm.match_prediction_teams(red_rank float8, red_rating_low float8, red_max_roster_size float8,
                                          blue_rank float8, blue_rating_low float8, blue_max_roster_size float8,
                                          config jsonb DEFAULT '{}',
                                          OUT prediction float8, OUT red_odds float8, OUT blue_odds float8,
                                          OUT odds float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'mm_match_prediction_teams'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.match_prediction_teams IS
    'predict a match of red and blue from each team''s average rank, average effective rating and largest roster: prediction in [-1, 1] (-1 red dominates), each team''s odds of victory, and both as odds';

-- @access public
CREATE FUNCTION mm.match_prediction_teams(rank float8[], rating_low float8[], max_roster_size float8[],
                                          config jsonb DEFAULT '{}',
                                          OUT prediction float8, OUT red_odds float8, OUT blue_odds float8,
                                          OUT odds float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'mm_match_prediction_teams_arrays'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.match_prediction_teams IS
    'predict a match of 2 to 64 teams from each team''s average rank, average effective rating and largest roster (one element per team, in team order): the prediction of its most lopsided pairing, the first two teams'' odds of victory, and every team''s (the mean of its pairwise odds times 2 / k)';

-- @access public
CREATE FUNCTION mm.match_prediction(team text[], rating float8[], deviation float8[], rank float8[],
                                    players integer[], config jsonb DEFAULT '{}',
                                    teams text[] DEFAULT '{red,blue}',
                                    OUT prediction float8, OUT red_odds float8, OUT blue_odds float8,
                                    OUT odds float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'mm_match_prediction'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.match_prediction IS
    'predict a match from its rosters (one element per roster: its team, one of teams (red and blue by default, in team order), rating, deviation, average rank, players): prediction in [-1, 1] (at more teams its most lopsided pairing''s), the first two teams'' odds of victory, and every team''s';

-- @access public
CREATE FUNCTION mm.odds_of_victory(prediction float8, team text)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_odds_of_victory_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.odds_of_victory IS
    'a team''s odds of victory (0 to 1) from a match prediction: blue = prediction / 2 + 0.5, red = 1 - blue';

-- @access public
CREATE FUNCTION mm.ladder_config_resolve(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ladder_config_resolve'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_config_resolve IS
    'check a ladder config (overrides of the defaults, ''{}'' for none) and return it complete';

-- @access public
CREATE FUNCTION mm.ladder_config_defaults()
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN mm.ladder_config_resolve('{}');
COMMENT ON FUNCTION mm.ladder_config_defaults IS
    'the GW2 wiki''s <Ladder> config: default 0, min 0, max 1000000, leaderboard_points 1, its five odds matrices, no season bounds';

-- @access public
CREATE FUNCTION mm.ladder_points(odds float8, final_score float8, result text,
                                 config jsonb DEFAULT '{}', at timestamptz DEFAULT now())
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_ladder_points'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_points IS
    'ladder points for a game (getPoints and processGame of the Guild Wars 2 wiki''s PvP matchmaking page): result victory, defeat or desertion; 0 outside the season; a victory earns at least 1';

-- @access public
CREATE FUNCTION mm.ladder_apply(current integer, points integer, config jsonb DEFAULT '{}',
                                OUT ladder_points integer, OUT on_leaderboard boolean,
                                OUT leaderboard text)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_ladder_apply'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_apply IS
    'add awarded points to a ladder total (NULL: the default) clamped to [min, max]; whether the player is on the leaderboard and the leaderboard action (update, remove or NULL)';
