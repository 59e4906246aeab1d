# Sourced by as-root.sh and as-user.sh, as root, with $stage a fresh root-owned directory:
# copy the shipped profiles and the test fixtures there, owned by root and writable by no one
# else, and point SBX_SOURCE_DIR at the copy. sbx refuses a profile or policy that someone
# other than the caller or root could have written, folders on the way included, so the
# tests must not depend on who owns the checkout or on the umask it was made with.
if [ -n "${SBX_SOURCE_DIR:-}" ] && [ -d "$SBX_SOURCE_DIR/profiles" ]; then
	mkdir -p "$stage/src/tests"
	cp -R "$SBX_SOURCE_DIR/profiles" "$stage/src/profiles"
	cp -R "$SBX_SOURCE_DIR/tests/fixtures" "$stage/src/tests/fixtures"
	# examples/ (it_examples runs its CI files, wrappers and manifests)
	if [ -d "$SBX_SOURCE_DIR/examples" ]; then
		cp -R "$SBX_SOURCE_DIR/examples" "$stage/src/examples"
	fi
	chown -R 0:0 "$stage/src"
	chmod -R go-w,a+rX "$stage/src"
	chmod 755 "$stage"
	SBX_SOURCE_DIR="$stage/src"
	export SBX_SOURCE_DIR
fi
