// Package lsptest is a fake editor for in-process tests of a language server, in the manner of
// gopls's internal/test/integration fake editor.
//
// A test serves the server on one end of a net.Pipe and connects an Editor to the other:
//
//	serverConn, clientConn := net.Pipe()
//	go srv.Serve(ctx, serverConn)
//	ed, err := lsptest.Connect(ctx, clientConn, lsptest.VSCode)
//	defer ed.Close()
//	_, err = ed.Initialize(ctx, []string{dir}, nil)
//	_, err = ed.ExecuteCommand(ctx, "hermes.ask", args)
//	err = ed.Await(ctx, lsptest.AnyProgressEnded())
//
// The Editor speaks LSP over go.lsp.dev/jsonrpc2 v0.10.0 and does not depend on the server's
// package. Its Profile (VSCode, Neovim07, Helix2501, Eglot) decides what initialize advertises and
// how the server's requests are answered — including the refusals of real editors (Helix answers
// window/showMessageRequest with -32601, Eglot has no window capabilities). Everything the server
// sends is recorded in a State, and Await blocks until a condition over it holds: there are no
// sleeps, only waits on messages bounded by a context.
package lsptest
