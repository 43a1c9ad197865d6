-- 1M games of one rating period, 10 per player for 100k players: each row
-- holds the player's rating (constant per player) and one game's opponent
-- and score.
CREATE TABLE games AS
SELECT (g % 100000) + 1 AS player,
       1200 + (((g % 100000) + 1) * 7919 % 800)::float8 AS rating,
       50 + (((g % 100000) + 1) % 250)::float8 AS rd,
       0.06::float8 AS vol,
       1200 + ((g * 104729) % 800)::float8 AS opp_rating,
       50 + ((g * 31) % 250)::float8 AS opp_rd,
       CASE (g * 13) % 5 WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 ELSE 0 END::float8 AS score
FROM generate_series(0::bigint, 999999) g;
VACUUM ANALYZE games;

-- Glickman's steps 1-8 as a user would write them in PL/pgSQL: the
-- per-game sums (steps 3-4), then steps 5-8 from the sums.
CREATE FUNCTION glicko2_finish_plpgsql(rating float8, rd float8, vol float8,
                                       v_inv float8, d_sum float8, n float8, tau float8,
                                       OUT new_rating float8, OUT new_rd float8, OUT new_vol float8)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    mu float8 := (rating - 1500) / 173.7178;
    phi float8 := rd / 173.7178;
    v float8; delta float8;
    a float8; big_a float8; big_b float8; big_c float8;
    f_a float8; f_b float8; f_c float8; k int;
    phi_star float8; phi_new float8;
BEGIN
    IF n = 0 THEN
        new_rating := rating; new_vol := vol;
        new_rd := sqrt(phi * phi + vol * vol) * 173.7178;
        RETURN;
    END IF;
    v := 1 / v_inv;
    delta := v * d_sum;
    a := ln(vol * vol);
    big_a := a;
    IF delta * delta > phi * phi + v THEN
        big_b := ln(delta * delta - phi * phi - v);
    ELSE
        k := 1;
        LOOP
            big_c := a - k * tau;
            EXIT WHEN exp(big_c) * (delta^2 - phi^2 - v - exp(big_c)) / (2 * (phi^2 + v + exp(big_c))^2)
                      - (big_c - a) / tau^2 >= 0;
            k := k + 1;
        END LOOP;
        big_b := a - k * tau;
    END IF;
    f_a := exp(big_a) * (delta^2 - phi^2 - v - exp(big_a)) / (2 * (phi^2 + v + exp(big_a))^2) - (big_a - a) / tau^2;
    f_b := exp(big_b) * (delta^2 - phi^2 - v - exp(big_b)) / (2 * (phi^2 + v + exp(big_b))^2) - (big_b - a) / tau^2;
    WHILE abs(big_b - big_a) > 1e-7 LOOP
        big_c := big_a + (big_a - big_b) * f_a / (f_b - f_a);
        f_c := exp(big_c) * (delta^2 - phi^2 - v - exp(big_c)) / (2 * (phi^2 + v + exp(big_c))^2) - (big_c - a) / tau^2;
        IF f_c * f_b <= 0 THEN
            big_a := big_b; f_a := f_b;
        ELSE
            f_a := f_a / 2;
        END IF;
        big_b := big_c; f_b := f_c;
    END LOOP;
    new_vol := exp(big_a / 2);
    phi_star := sqrt(phi * phi + new_vol * new_vol);
    phi_new := 1 / sqrt(1 / phi_star^2 + 1 / v);
    new_rating := 173.7178 * (mu + phi_new^2 * d_sum) + 1500;
    new_rd := 173.7178 * phi_new;
END;
$$;

-- Form 1: array_agg per player, then one function call per player.
CREATE FUNCTION glicko2_rate_plpgsql(rating float8, rd float8, vol float8,
                                     opp_rating float8[], opp_rd float8[], score float8[],
                                     tau float8 DEFAULT 0.5,
                                     OUT new_rating float8, OUT new_rd float8, OUT new_vol float8)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    mu float8 := (rating - 1500) / 173.7178;
    v_inv float8 := 0;
    d_sum float8 := 0;
    g float8; e float8;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(opp_rating), 0) LOOP
        g := 1 / sqrt(1 + 3 * (opp_rd[i] / 173.7178)^2 / pi()^2);
        e := 1 / (1 + exp(-g * (mu - (opp_rating[i] - 1500) / 173.7178)));
        v_inv := v_inv + g * g * e * (1 - e);
        d_sum := d_sum + g * (score[i] - e);
    END LOOP;
    SELECT * INTO new_rating, new_rd, new_vol
    FROM glicko2_finish_plpgsql(rating, rd, vol, v_inv, d_sum, coalesce(cardinality(opp_rating), 0), tau);
END;
$$;

-- Form 2: a PL/pgSQL aggregate (transition per game, steps 5-8 at the end).
CREATE FUNCTION glicko2_step_plpgsql(state float8[], rating float8, rd float8, vol float8,
                                     opp_rating float8, opp_rd float8, score float8)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    g float8 := 1 / sqrt(1 + 3 * (opp_rd / 173.7178)^2 / pi()^2);
    e float8 := 1 / (1 + exp(-g * ((rating - opp_rating) / 173.7178)));
BEGIN
    RETURN ARRAY[rating, rd, vol, coalesce(state[4], 0) + g * g * e * (1 - e),
                 coalesce(state[5], 0) + g * (score - e), coalesce(state[6], 0) + 1];
END;
$$;
CREATE FUNCTION glicko2_final_plpgsql(state float8[]) RETURNS mm.glicko
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    r record;
BEGIN
    SELECT * INTO r FROM glicko2_finish_plpgsql(state[1], state[2], state[3], state[4], state[5], state[6], 0.5);
    RETURN ROW(r.new_rating, r.new_rd, r.new_vol)::mm.glicko;
END;
$$;
CREATE AGGREGATE glicko2_period_plpgsql(float8, float8, float8, float8, float8, float8) (
    SFUNC = glicko2_step_plpgsql, STYPE = float8[], FINALFUNC = glicko2_final_plpgsql, INITCOND = '{}');
