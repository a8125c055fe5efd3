;;; lint.el --- make lint-editors' checks of hermes-lsp.el -*- lexical-binding: t; -*-

;; emacs --batch -Q -l test/lint.el FILE: byte-compiles FILE, and the files of the package beside
;; it (hermes-lsp-*.el), with every warning an error (with Debian's lsp-mode and eglot on the load
;; path, as emacs_test.go does, so that their macros and functions are the real ones), then runs
;; checkdoc over each; exits 1 on any finding.  The compiled files go to a temporary folder, never
;; beside FILE.

;;; Code:

(require 'checkdoc)

(defvar hermes-lint-elpa (or (getenv "HERMES_EMACS_ELPA") "/usr/share/emacs/site-lisp/elpa")
  "Where Debian's elpa-* packages put lsp-mode and eglot.")

(let* ((first (expand-file-name (car command-line-args-left)))
       (files (cons first (remove first (directory-files (file-name-directory first) t "\\`hermes-lsp-.*\\.el\\'"))))
       (tmp (make-temp-file "hermes-lint" t))
       (byte-compile-dest-file-function (lambda (f) (expand-file-name (concat (file-name-base f) ".elc") tmp)))
       (byte-compile-error-on-warn t)
       (failed nil))
  (setq command-line-args-left nil)
  (setq package-directory-list (list hermes-lint-elpa))
  (package-initialize)
  (add-to-list 'load-path (file-name-directory first))
  (dolist (file files)
    (unless (byte-compile-file file)
      (message "lint.el: %s: byte-compile failed (warnings are errors)" file)
      (setq failed t))
    (setq checkdoc-pending-errors nil)
    (checkdoc-file file)
    (when checkdoc-pending-errors
      (message "lint.el: %s: checkdoc found the above" file)
      (setq failed t)))
  (delete-directory tmp t)
  (kill-emacs (if failed 1 0)))

;;; lint.el ends here
