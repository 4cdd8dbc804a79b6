# Manual pages and shell completions, for Scripts/install (and so Scripts/package).
# Sourced, not run; needs common.sh, REACHD_RELEASE_FLAGS, and Scripts/install's place_text.
#
# reachctl's page and completions come from its one declaration of its command line
# (Sources/CommandGrammar: --experimental-dump-help, which swift-argument-parser's
# generate-manual reads, and --generate-completion-script), so they cannot drift from the
# options reachctl takes; reachd parses its options itself, so its page is written by hand
# (man/reachd.8) and Tests/ReachdKitTests/ManualPageTests holds it to reachd's parser.
#
# What generate-manual cannot know is written by hand too: reachctl(1)'s ENVIRONMENT, FILES,
# EXAMPLES and SEE ALSO are in man/reachctl.1.extra and are put into the generated page here.
# Both pages name files under the prefix given to Scripts/install (@PREFIX@) and carry
# Scripts/lib/version.sh's version in their footers (@VERSION@).

# manual_substitute PREFIX VERSION DATE: standard input with the placeholders filled in.
manual_substitute() {
    sed -e "s|@PREFIX@|$1|g" -e "s|@VERSION@|$2|g" -e "s|@DATE@|$3|g"
}

# finish_reachctl_page GENERATED PREFIX VERSION DATE: generate-manual's reachctl.1 as installed.
#
# Each subcommand's help carries reachctl's EXIT STATUS table, since `reachctl wait --help`
# should say how `wait` exits; in the page, where the subcommands' helps follow one another,
# that would be the same table six times. The tables are taken out of the text, the first is
# kept as the page's one EXIT STATUS section (in place of generate-manual's generic `.Ex -std`),
# so the statuses still come from reachctl itself; man/reachctl.1.extra's sections go around it
# in mdoc's order, and the footer (`.Os`, which generate-manual leaves empty) names the version.
# mdoc's footer is the version, the date and the version again: with the month abbreviated,
# a checkout's version (reachd 1.1.0+git20261125.5c0cf7d) still fits 80 columns.
finish_reachctl_page() {
    local generated="$1" prefix="$2" version="$3" date="$4"
    manual_substitute "$prefix" "$version" "$date" < "$REACHD_ROOT/man/reachctl.1.extra" \
        | awk -v version="$version" -v short_date="$(LC_ALL=C date -u -d "$date" '+%b %-d, %Y')" -v extra_file=/dev/stdin '
        # A line of a help text beginning with "." would be read as a macro.
        function text(line) { sub(/^[ \t]+/, "", line); if (line ~ /^[.\047]/) line = "\\&" line; return line }
        BEGIN {
            while ((getline line < extra_file) > 0) extra[++extra_lines] = line
        }
        # A table: "EXIT STATUS", then indented "CODE  meaning" lines (continued by deeper ones).
        table {
            if ($0 ~ /^[ \t]+[0-9]+[ \t]/) {
                if (tables == 1) { codes[++entries] = $1; line = $0; sub(/^[ \t]+[0-9]+[ \t]+/, "", line); meanings[entries] = text(line) }
                next
            }
            if ($0 ~ /^[ \t]+[^ \t]/) { if (tables == 1 && entries) meanings[entries] = meanings[entries] " " text($0); next }
            table = 0
        }
        $0 == "EXIT STATUS" { table = 1; tables++; blank = 0; next }
        # A blank line is held back: the one before a table goes with it.
        /^$/ { if (blank) print ""; blank = 1; next }
        { if (blank) print ""; blank = 0 }
        /^\.Os( |$)/ { print ".Os reachd " version; next }
        /^\.Dd / { print ".Dd " short_date; next }
        /^\.Sh "?EXIT STATUS"?$/ { in_generated_exit_status = 1; next }
        in_generated_exit_status && /^\.Ex / { next }
        in_generated_exit_status && /^\.Sh / {
            in_generated_exit_status = 0
            if (!entries) { print "manuals.sh: reachctl --help has no EXIT STATUS table" > "/dev/stderr"; failed = 1; exit 1 }
            for (i = 1; i <= extra_lines; i++) {
                if (extra[i] != ".\\\" @EXIT-STATUS@") { print extra[i]; continue }
                print ".Sh EXIT STATUS"
                print ".Bl -tag -width Ds -compact"
                for (e = 1; e <= entries; e++) { print ".It " codes[e]; print meanings[e] }
                print ".El"
                placed = 1
            }
        }
        in_generated_exit_status { next }
        { print }
        END {
            if (failed) exit 1
            if (!placed) { print "manuals.sh: generate-manual wrote no EXIT STATUS section to replace, or man/reachctl.1.extra has no @EXIT-STATUS@ line" > "/dev/stderr"; exit 1 }
        }' "$generated" \
        | sed 's/^$/.Pp/'   # mdoc warns about empty lines (the help text's paragraph breaks); .Pp is what they mean
}

# install_manuals_and_completions ROOT PREFIX BIN REACHCTL: pages under ROOT/share/man,
# completions where bash, zsh and fish look for them. BIN holds the built generate-manual;
# REACHCTL is the installed reachctl, whose own description and completions they are.
install_manuals_and_completions() {
    local root="$1" prefix="$2" bin="$3" reachctl="$4" work zsh_directory version date
    swift_build "${REACHD_RELEASE_FLAGS[@]}" --product generate-manual >/dev/null
    version="$("$REACHD_ROOT/Scripts/lib/version.sh")"
    # The pages' date is the last commit's, so a rebuild of the same tree gives the same pages.
    date="$(git -C "$REACHD_ROOT" log -1 --format=%cs 2>/dev/null || date -u +%F)"
    work="$(mktemp -d)"
    "$bin/generate-manual" "$reachctl" --section 1 --authors "reachd contributors" \
        --date "$date" --output-directory "$work"
    finish_reachctl_page "$work/reachctl.1" "$prefix" "$version" "$date" > "$work/reachctl.1.finished"
    gzip -9nc "$work/reachctl.1.finished" | place_text 0644 "$root/share/man/man1/reachctl.1.gz"
    manual_substitute "$prefix" "$version" "$date" < "$REACHD_ROOT/man/reachd.8" \
        | gzip -9nc | place_text 0644 "$root/share/man/man8/reachd.8.gz"
    rm -rf "$work"

    # Debian's zsh reads vendor-completions; a local install goes where zsh's own fpath has it.
    zsh_directory="$root/share/zsh/site-functions"
    [ "$prefix" = /usr ] && zsh_directory="$root/share/zsh/vendor-completions"
    # bash-completion sources the file: a #! line there means nothing (lintian warns of it).
    "$reachctl" --generate-completion-script bash | sed '1{/^#!/d}' \
        | place_text 0644 "$root/share/bash-completion/completions/reachctl"
    "$reachctl" --generate-completion-script zsh | place_text 0644 "$zsh_directory/_reachctl"
    "$reachctl" --generate-completion-script fish | place_text 0644 "$root/share/fish/vendor_completions.d/reachctl.fish"
}
