#!/usr/bin/env bash
# PNG plots with gnuplot (installed from Debian when missing).
#
#   test/plots.sh deps              install gnuplot-nox if missing (as root)
#   test/plots.sh analytics DIR [DB]
#                                   plots of a simulated season into DIR:
#                                   convergence.png, reliability.png, beta_fit.png,
#                                   whatif_waits.png
#                                   (needs PGHOST/PGPORT/PGUSER of a running
#                                   cluster with mm installed); with DB, a
#                                   database whose queues made matches, also
#                                   wait_times.png (mm.match_roster.waited)
#   test/plots.sh bench OUT         one PNG per benchmark in OUT (from OUT/NAME.raw,
#                                   as test/bench/run.sh writes them): each case's
#                                   median time beside the baseline's
#   test/plots.sh season DIR DB     the season simulation's figures (test/bench/season,
#                                   database DB after its setup.sql): season_wait.png
#                                   (wait histogram per rating model) and
#                                   season_reliability.png (the favourite's stored odds)
#   test/plots.sh quality DIR DB    the quality report's figures (test/bench/quality,
#                                   database DB after its setup.sql):
#                                   quality_convergence.png (Spearman correlation of
#                                   rating with hidden skill at k games, per shape,
#                                   beside the offline fit) and quality_odds.png (the
#                                   favourite's stored odds, 3v3, three configs)
#   test/plots.sh docs              regenerate the PNGs that docs/analytics.md
#                                   and docs/whatif.md show (docs/img/), on a
#                                   throwaway cluster
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

cmd_deps() {
	command -v gnuplot >/dev/null && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "plots.sh: gnuplot is missing; run as root, or: sudo apt-get install gnuplot-nox" >&2
		exit 1
	fi
	echo "== installing gnuplot-nox"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends gnuplot-nox; }
}

# Tab-separated rows of a query.
tsv() { psql -X -At -F $'\t' -d "$1" -c "$2"; }

cmd_analytics() {
	local dir=$1 db=mm_plots tmp
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	tmp=$(mktemp -d)
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -d "$db" -c "CREATE EXTENSION mm"
	psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f test/plots/season.sql

	# convergence: correlation of each player's rating with the hidden skill
	# after every 100 matches
	tsv "$db" "
		SELECT c.m, corr(r.mu_after, k.skill), corr(r.mu_after - 3 * r.sigma_after, k.skill)
		FROM generate_series(100, 3000, 100) c(m)
		CROSS JOIN LATERAL (SELECT DISTINCT ON (player_id) player_id, mu_after, sigma_after
		                    FROM plot_history WHERE game <= c.m ORDER BY player_id, game DESC) r
		JOIN plot_skill k USING (player_id)
		GROUP BY c.m ORDER BY c.m" >"$tmp/convergence.tsv"
	gnuplot <<-GP
		set terminal pngcairo size 720,440 noenhanced
		set output "$dir/convergence.png"
		set title "OpenSkill ratings converge on the hidden skill (200 players, 3v3)"
		set xlabel "matches played in the season"
		set ylabel "correlation with hidden skill"
		set yrange [0:1]
		set key bottom right
		set grid
		plot "$tmp/convergence.tsv" using 1:2 with linespoints title "mu", \
		     "" using 1:3 with linespoints title "ordinal (mu - 3 sigma)"
	GP

	# reliability diagram of the pre-match predictions
	tsv "$db" "
		SELECT predicted, observed, n FROM mm.reliability(
		    mm.openskill_calibration('SELECT * FROM public.plot_season ORDER BY match_id, team, player_id', bins => 10))
		WHERE n > 0" >"$tmp/reliability.tsv"
	gnuplot <<-GP
		set terminal pngcairo size 560,520 noenhanced
		set output "$dir/reliability.png"
		set title "Reliability of openskill predict_win (favoured team)"
		set xlabel "predicted probability"
		set ylabel "observed frequency"
		set xrange [0.5:1]
		set yrange [0:1]
		set key top left
		set grid
		plot x with lines dashtype 2 title "perfect calibration", \
		     "$tmp/reliability.tsv" using 1:2 with linespoints pointtype 7 title "mm.openskill_calibration"
	GP

	# the log loss against beta: ratings started at the hidden skill (the
	# curve's minimum is the performance deviation), and learned from the
	# defaults (beta also sets how fast they learn)
	tsv "$db" "
		SELECT k.value, k.log_loss, d.log_loss
		FROM mm.openskill_fit('SELECT * FROM public.plot_season ORDER BY match_id, team, player_id',
		         grid => ARRAY(SELECT g / 2.0 FROM generate_series(2, 32) g),
		         initial => 'SELECT player_id, skill, 0.01 FROM public.plot_skill') k
		JOIN mm.openskill_fit('SELECT * FROM public.plot_season ORDER BY match_id, team, player_id',
		         grid => ARRAY(SELECT g / 2.0 FROM generate_series(2, 32) g)) d USING (step)
		ORDER BY k.value" >"$tmp/fit.tsv"
	gnuplot <<-GP
		set terminal pngcairo size 720,440 noenhanced
		set output "$dir/beta_fit.png"
		set title "Log loss against beta, 3v3, performance deviation 4 per player"
		set xlabel "beta"
		set ylabel "log loss"
		set grid
		set key top right
		plot "$tmp/fit.tsv" using 1:2 with linespoints pointtype 7 title "ratings started at the hidden skill", \
		     "" using 1:3 with linespoints pointtype 5 title "ratings learned from mu 25, sigma 8.33"
	GP
	# the what-if replay: an hour of a busy queue under three configs
	psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f test/plots/whatif.sql
	for c in 0 1 2; do
		cfg=$(echo '{}|{"filter": {"potentials_min": 4}}|{"filter": {"deviations": 1, "padding": 4}}' | cut -d'|' -f$((c + 1)))
		tsv "$db" "SET client_min_messages = warning;
			SELECT least(extract(epoch FROM waited), 30) FROM mm.whatif_matches('plot_whatif', '2026-01-01 00:00+00', '2026-01-01 01:00+00', '$cfg')" >"$tmp/whatif_$c.tsv"
	done
	gnuplot <<-GP
		set terminal pngcairo size 720,440 noenhanced
		set output "$dir/whatif_waits.png"
		set title "mm.whatif: an hour of a busy 5v5 queue, three configs (30: 30 s or more)"
		set xlabel "seconds waited"
		set ylabel "share of rosters matched"
		set style fill transparent solid 0.5
		set xrange [-0.5:30.5]
		set grid ytics
		bin(x) = floor(x + 0.5)
		set boxwidth 1
		stats "$tmp/whatif_0.tsv" using 1 nooutput name "C0"
		stats "$tmp/whatif_1.tsv" using 1 nooutput name "C1"
		stats "$tmp/whatif_2.tsv" using 1 nooutput name "C2"
		plot "$tmp/whatif_0.tsv" using (bin(\$1)):(1.0 / C0_records) smooth frequency with boxes lc rgb "#3366cc" title "the queue's config", \
		     "$tmp/whatif_1.tsv" using (bin(\$1)):(1.0 / C1_records) smooth frequency with boxes lc rgb "#339933" title "potentials_min 4", \
		     "$tmp/whatif_2.tsv" using (bin(\$1)):(1.0 / C2_records) smooth frequency with boxes lc rgb "#cc6633" title "deviations 1, padding 4"
	GP
	psql -X -q -d postgres -c "DROP DATABASE $db"

	# the queue's wait-time distribution
	if [ -n "${2:-}" ]; then
		tsv "$2" "SELECT extract(epoch FROM waited) FROM mm.match_roster" >"$tmp/waits.tsv"
		if [ -s "$tmp/waits.tsv" ]; then
			gnuplot <<-GP
				set terminal pngcairo size 720,440 noenhanced
				set output "$dir/wait_times.png"
				set title "Wait before a match, rosters matched by the queue ticks"
				set xlabel "seconds waited"
				set ylabel "rosters"
				set style fill solid 0.7
				set grid ytics
				stats "$tmp/waits.tsv" using 1 nooutput
				width = (STATS_max - STATS_min) / 20.0
				if (width <= 0) width = 1
				bin(x) = width * floor(x / width) + width / 2
				set boxwidth width * 0.9
				plot "$tmp/waits.tsv" using (bin(\$1)):(1.0) smooth frequency with boxes notitle
			GP
		fi
	fi
	rm -rf "$tmp"
	echo "plots written to $dir"
}

cmd_bench() {
	local out=$1 raw name base
	for raw in "$out"/*.raw; do
		[ -e "$raw" ] || continue
		name=$(basename "$raw" .raw)
		base=$(cat "test/bench/$name/baseline" 2>/dev/null || true)
		# case, median ms, 1 for the baseline
		: >"$out/$name.tsv"
		while IFS=$'\t' read -r case_name samples; do
			printf '%s\t%s\t%d\n' "$case_name" \
				"$(printf '%s\n' $samples | sort -n | awk '{v[NR] = $1 / 1000}
					END {printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')" \
				"$([ "$case_name" = "$base" ] && echo 1 || echo 0)" >>"$out/$name.tsv"
		done <"$raw"
		gnuplot <<-GP
			set terminal pngcairo size 720,400 noenhanced
			set output "$out/$name.png"
			set title "$name: median wall time per case (baseline in grey)"
			set ylabel "ms"
			set style fill solid 0.8
			set boxwidth 0.6
			set yrange [0:*]
			set grid ytics
			set xtics rotate by -20
			plot "$out/$name.tsv" using 0:2:(\$3 > 0 ? 0xaaaaaa : 0x3366cc):xtic(1) with boxes lc rgb variable notitle, \
			     "" using 0:2:(sprintf("%.0f", \$2)) with labels offset 0,0.8 notitle
		GP
	done
	echo "benchmark plots written to $out"
}

cmd_quality() {
	local dir=$1 db=$2 tmp shape config f panels=""
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	tmp=$(mktemp -d)
	for shape in duel 3v3 5v5 ffa8; do
		for config in openskill glicko2 elo recommended; do
			f="$tmp/conv_${shape}_${config}.tsv"
			tsv "$db" "SELECT k, online, offline FROM quality_convergence
			           WHERE shape = '$shape' AND config = '$config' ORDER BY k" >"$f"
		done
	done
	for config in "glicko2" "glicko2 gw2 split" "glicko2 balance"; do
		tsv "$db" "SELECT favourite FROM quality_match WHERE shape = '3v3' AND config = '$config'" \
			>"$tmp/odds_${config// /_}.tsv"
	done
	for shape in duel 3v3 5v5 ffa8; do
		panels="$panels
			set title \"$shape\"
			plot \"$tmp/conv_${shape}_recommended.tsv\" using 1:3 with linespoints dashtype 2 lc rgb \"#000000\" pointtype 6 title \"offline fit (recommended season)\", \\
			     \"$tmp/conv_${shape}_recommended.tsv\" using 1:2 with linespoints lc rgb \"#000000\" pointtype 7 title \"recommended\", \\
			     \"$tmp/conv_${shape}_openskill.tsv\" using 1:2 with linespoints lc rgb \"#3366cc\" pointtype 5 title \"openskill\", \\
			     \"$tmp/conv_${shape}_glicko2.tsv\" using 1:2 with linespoints lc rgb \"#cc6633\" pointtype 9 title \"glicko2\", \\
			     \"$tmp/conv_${shape}_elo.tsv\" using 1:2 with linespoints lc rgb \"#339933\" pointtype 11 title \"elo\""
	done
	gnuplot <<-GP
		set terminal pngcairo size 960,720 noenhanced
		set output "$dir/quality_convergence.png"
		set multiplot layout 2,2 title "Spearman correlation of rating with hidden skill, players at k games"
		set xlabel "games played"
		set ylabel "Spearman correlation"
		set logscale x
		set xtics (5, 10, 20, 50)
		set xrange [4:60]
		set yrange [0:1]
		set key bottom right font ",8"
		set grid
		$panels
		unset multiplot
	GP
	gnuplot <<-GP
		set terminal pngcairo size 720,440 noenhanced
		set output "$dir/quality_odds.png"
		set title "3v3: the favourite's stored odds per match"
		set xlabel "stored odds of the favourite"
		set ylabel "share of matches"
		set xrange [0.5:0.9]
		set grid ytics
		bin(x) = 0.5 + 0.01 * floor((x - 0.5) / 0.01) + 0.005
		stats "$tmp/odds_glicko2.tsv" using 1 nooutput name "F"
		stats "$tmp/odds_glicko2_gw2_split.tsv" using 1 nooutput name "G"
		stats "$tmp/odds_glicko2_balance.tsv" using 1 nooutput name "B"
		plot "$tmp/odds_glicko2_gw2_split.tsv" using (bin(\$1)):(1.0 / G_records) smooth frequency with steps lw 2 lc rgb "#cc6633" title "glicko2, GW2's teams (split gw2)", \
		     "$tmp/odds_glicko2.tsv" using (bin(\$1)):(1.0 / F_records) smooth frequency with steps lw 2 lc rgb "#3366cc" title "glicko2, the fairest split (default)", \
		     "$tmp/odds_glicko2_balance.tsv" using (bin(\$1)):(1.0 / B_records) smooth frequency with steps lw 2 lc rgb "#339933" title "glicko2, fairest split and a balance rule (0.6, 0.7 after 20 s)"
	GP
	rm -rf "$tmp"
	echo "quality plots written to $dir"
}

cmd_season() {
	local dir=$1 db=$2 tmp model
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	tmp=$(mktemp -d)
	for model in openskill glicko2 elo; do
		tsv "$db" "SELECT least(waited, 60) FROM season_wait WHERE model = '$model'" >"$tmp/wait_$model.tsv"
		tsv "$db" "SELECT predicted, observed, matches,
		                  greatest(0.05, 2 * sqrt(observed * (1 - observed) / matches))
		           FROM season_bins WHERE model = '$model' AND matches >= 20 ORDER BY bin_lo" >"$tmp/rel_$model.tsv"
	done
	gnuplot <<-GP
		set terminal pngcairo size 720,440 noenhanced
		set output "$dir/season_wait.png"
		set title "Wait before a match, 400 players, 3v3, queue defaults (60: 60 s or more)"
		set xlabel "seconds waited"
		set ylabel "share of rosters matched"
		set style fill transparent solid 0.5
		set boxwidth 1
		set xrange [-0.5:60.5]
		set grid ytics
		bin(x) = floor(x + 0.5)
		stats "$tmp/wait_openskill.tsv" using 1 nooutput name "OS"
		stats "$tmp/wait_glicko2.tsv" using 1 nooutput name "G2"
		stats "$tmp/wait_elo.tsv" using 1 nooutput name "EL"
		plot "$tmp/wait_openskill.tsv" using (bin(\$1)):(1.0 / OS_records) smooth frequency with boxes lc rgb "#3366cc" title "openskill", \
		     "$tmp/wait_glicko2.tsv" using (bin(\$1)):(1.0 / G2_records) smooth frequency with boxes lc rgb "#cc6633" title "glicko2", \
		     "$tmp/wait_elo.tsv" using (bin(\$1)):(1.0 / EL_records) smooth frequency with boxes lc rgb "#339933" title "elo"
	GP
	gnuplot <<-GP
		set terminal pngcairo size 560,520 noenhanced
		set output "$dir/season_reliability.png"
		set title "Stored odds of the favourite against its wins"
		set xlabel "stored odds of the favourite"
		set ylabel "observed frequency of its win"
		set xrange [0.5:1]
		set yrange [0.3:1]
		set key top left
		set grid
		plot x with lines dashtype 2 lc rgb "#888888" title "perfect calibration", \
		     "$tmp/rel_openskill.tsv" using 1:2:4 with yerrorlines pointtype 7 lc rgb "#3366cc" title "openskill (bars: allowed gap)", \
		     "$tmp/rel_glicko2.tsv" using 1:2:4 with yerrorlines pointtype 5 lc rgb "#cc6633" title "glicko2", \
		     "$tmp/rel_elo.tsv" using 1:2:4 with yerrorlines pointtype 9 lc rgb "#339933" title "elo"
	GP
	rm -rf "$tmp"
	echo "season plots written to $dir"
}

cmd_docs() {
	cmd_deps
	bash test/cluster.sh deps
	bash test/cluster.sh build
	bash test/cluster.sh start bench
	trap 'bash test/cluster.sh stop bench' EXIT
	eval "$(bash test/cluster.sh env bench)"
	export PGHOST PGPORT PGUSER
	cmd_analytics docs/img
}

case "${1:-}" in
	deps) cmd_deps ;;
	analytics) cmd_deps; cmd_analytics "${2:?directory}" "${3:-}" ;;
	bench) cmd_deps; cmd_bench "${2:?directory}" ;;
	season) cmd_deps; cmd_season "${2:?directory}" "${3:?database}" ;;
	quality) cmd_deps; cmd_quality "${2:?directory}" "${3:?database}" ;;
	docs) cmd_docs ;;
	*) echo "usage: test/plots.sh deps | analytics DIR | bench OUT | season DIR DB | quality DIR DB | docs" >&2; exit 2 ;;
esac
