# Manual pages and shell completions, for Scripts/install (and so Scripts/package).
# Sourced, not run; needs common.sh and REACHD_RELEASE_FLAGS.
#
# reachctl's page and completions come from its argument parser (swift-argument-parser's
# generate-manual tool and --generate-completion-script), so they cannot drift from the
# options reachctl takes; reachd parses its options itself, so its page is written by hand
# (man/reachd.8) and Tests/ReachabilityTests/ManualPageTests holds it to reachd's parser.

# install_manuals_and_completions ROOT PREFIX BIN: pages under ROOT/share/man, completions
# where bash, zsh and fish look for them. BIN holds the built reachctl.
install_manuals_and_completions() {
    local root="$1" prefix="$2" bin="$3" work zsh_directory
    swift build "${REACHD_RELEASE_FLAGS[@]}" --product generate-manual >/dev/null
    work="$(mktemp -d)"
    # The page's date is the last commit's, so a rebuild of the same tree gives the same page.
    "$bin/generate-manual" "$bin/reachctl" --section 1 --authors "reachd contributors" \
        --date "$(git -C "$REACHD_ROOT" log -1 --format=%cs 2>/dev/null || date -u +%F)" --output-directory "$work"
    # mdoc warns about empty lines (the help text's paragraph breaks); .Pp is what they mean.
    sed -i 's/^$/.Pp/' "$work/reachctl.1"
    install -d "$root/share/man/man1" "$root/share/man/man8"
    gzip -9nc "$work/reachctl.1" > "$root/share/man/man1/reachctl.1.gz"
    gzip -9nc "$REACHD_ROOT/man/reachd.8" > "$root/share/man/man8/reachd.8.gz"
    chmod 0644 "$root/share/man/man1/reachctl.1.gz" "$root/share/man/man8/reachd.8.gz"
    rm -rf "$work"

    # Debian's zsh reads vendor-completions; a local install goes where zsh's own fpath has it.
    zsh_directory="$root/share/zsh/site-functions"
    [ "$prefix" = /usr ] && zsh_directory="$root/share/zsh/vendor-completions"
    install -d "$root/share/bash-completion/completions" "$zsh_directory" "$root/share/fish/vendor_completions.d"
    # bash-completion sources the file: a #! line there means nothing (lintian warns of it).
    "$bin/reachctl" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/share/bash-completion/completions/reachctl"
    "$bin/reachctl" --generate-completion-script zsh > "$zsh_directory/_reachctl"
    "$bin/reachctl" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/reachctl.fish"
    chmod 0644 "$root/share/bash-completion/completions/reachctl" "$zsh_directory/_reachctl" \
        "$root/share/fish/vendor_completions.d/reachctl.fish"
}
