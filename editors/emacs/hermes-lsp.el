;;; hermes-lsp.el --- OpenAI Codex agent turns in Emacs through hermes-lsp -*- lexical-binding: t; -*-

;; Copyright (c) 2026 The hermes-lsp authors
;; License: MIT (see LICENSE in the repository)
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; URL: https://github.com/hermes-lsp/hermes-lsp

;;; Commentary:

;; hermes-lsp is a language server that runs OpenAI Codex agent turns.  This file connects it to
;; Emacs's two LSP clients:
;;
;; - lsp-mode runs several servers per buffer: `hermes-lsp' registers an add-on client
;;   (`:add-on? t') that runs beside the buffer's usual server, in every buffer lsp-mode manages.
;; - eglot runs one server per buffer: giving it hermes-lsp for a major mode takes that mode away
;;   from its usual server.  `hermes-lsp-eglot-setup' therefore only claims modes where nothing else
;;   runs (`hermes-lsp-eglot-modes': text, markdown and org by default).
;;
;; The commands (`hermes-lsp-ask', `hermes-lsp-stop', `hermes-lsp-status', `hermes-lsp-threads',
;; `hermes-lsp-login') go to whichever of the two serves the buffer.  Approvals come as the client's
;; own window/showMessageRequest question; the agent's work shows as LSP progress.
;;
;;   (add-to-list 'load-path "/path/to/hermes-lsp/editors/emacs")
;;   (require 'hermes-lsp)
;;   (with-eval-after-load 'lsp-mode (hermes-lsp-lsp-mode-setup))   ; beside your servers
;;   (with-eval-after-load 'eglot (hermes-lsp-eglot-setup))         ; text, markdown, org

;;; Code:

(require 'cl-lib)
(require 'seq)

(defgroup hermes-lsp nil
  "OpenAI Codex agent turns through the hermes-lsp language server."
  :group 'tools
  :prefix "hermes-lsp-")

(defcustom hermes-lsp-command '("hermes-lsp" "--stdio")
  "The server command and its arguments."
  :type '(repeat string))

(defcustom hermes-lsp-settings
  '(:approvals (:mode "manual" :timeoutSeconds 300)
    :codex (:approvalPolicy "untrusted" :sandbox "workspace-write"))
  "The `hermes' settings, sent as initializationOptions.hermes.
See docs/protocol.md for them.
Settings that run a program or lower approvals (codex.path,
approvals.mode, yolo) are taken from here only: this is the
editor's launch configuration, not a project's."
  :type 'sexp)

(defcustom hermes-lsp-eglot-modes '(text-mode markdown-mode org-mode)
  "Major modes `hermes-lsp-eglot-setup' gives to hermes-lsp under eglot.
Eglot runs one server per buffer: a mode listed here loses its
usual eglot server."
  :type '(repeat symbol))

(defcustom hermes-lsp-lsp-mode-activation nil
  "When lsp-mode starts hermes-lsp.
nil for every buffer that visits a file, or a list of major modes."
  :type '(choice (const :tag "Every file" nil) (repeat symbol)))

(defun hermes-lsp--initialization-options ()
  "The initializationOptions the server gets."
  (list :hermes hermes-lsp-settings))

;;;; lsp-mode

(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function lsp-workspaces "lsp-mode")
(declare-function lsp--workspace-client "lsp-mode")
(declare-function lsp--client-server-id "lsp-mode")
(declare-function lsp-request "lsp-mode")
(declare-function lsp--point-to-position "lsp-mode")
(declare-function lsp--buffer-uri "lsp-mode")
(defvar lsp--cur-workspace)

;;;###autoload
(defun hermes-lsp-lsp-mode-setup ()
  "Register hermes-lsp with lsp-mode as an add-on client.
It runs beside each buffer's usual server, never instead of it."
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () hermes-lsp-command))
    :activation-fn (lambda (file-name mode)
                     (and file-name
                          (or (null hermes-lsp-lsp-mode-activation)
                              (memq mode hermes-lsp-lsp-mode-activation))))
    :add-on? t
    :priority -2
    :server-id 'hermes-lsp
    :initialization-options #'hermes-lsp--initialization-options
    :notification-handlers (let ((h (make-hash-table :test #'equal)))
                             ;; The hermes extension's events are for clients that draw a turn
                             ;; (VS Code's view); lsp-mode shows the progress instead.
                             (puthash "hermes/turnEvent" #'ignore h)
                             h))))

(defun hermes-lsp--lsp-workspace ()
  "The hermes-lsp workspace of the current buffer under lsp-mode, or nil."
  (and (bound-and-true-p lsp-mode)
       (seq-find (lambda (ws) (eq (lsp--client-server-id (lsp--workspace-client ws)) 'hermes-lsp))
                 (lsp-workspaces))))

;;;; eglot

(declare-function eglot-current-server "eglot")
(declare-function eglot-execute "eglot")
(declare-function eglot-execute-command "eglot")
(declare-function eglot-path-to-uri "eglot")
(declare-function eglot--path-to-uri "eglot")
(declare-function eglot--pos-to-lsp-position "eglot")
(defvar eglot-server-programs)

;;;###autoload
(defun hermes-lsp-eglot-setup ()
  "Give `hermes-lsp-eglot-modes' to hermes-lsp under eglot.
Only those: eglot runs one server per buffer."
  (add-to-list 'eglot-server-programs
               (cons hermes-lsp-eglot-modes
                     (append hermes-lsp-command
                             (list :initializationOptions (hermes-lsp--initialization-options))))))

(defun hermes-lsp--eglot-server ()
  "The eglot server of the current buffer, or nil."
  (and (fboundp 'eglot-current-server) (eglot-current-server)))

;;;; The commands, through whichever client serves the buffer

(defun hermes-lsp-get (object key)
  "KEY (a keyword, :folders) of OBJECT, a JSON object from either client.
eglot reads objects as plists; lsp-mode as hash tables, unless `lsp-use-plists'."
  (cond ((hash-table-p object) (gethash (substring (symbol-name key) 1) object))
        ((listp object) (plist-get object key))))

(defun hermes-lsp--uri ()
  "The current buffer's file as a URI."
  (let ((file (or (buffer-file-name) default-directory)))
    (cond ((fboundp 'eglot-path-to-uri) (eglot-path-to-uri file))
          ((fboundp 'eglot--path-to-uri) (eglot--path-to-uri file))
          (t (concat "file://" (expand-file-name file))))))

(defun hermes-lsp-execute (command &optional argument)
  "Run the server COMMAND (hermes.ask, ...) with ARGUMENT, a plist.
Return the command's result."
  (let ((args (if argument (vector argument) [])))
    (cond
     ((hermes-lsp--lsp-workspace)
      (let ((lsp--cur-workspace (hermes-lsp--lsp-workspace)))
        (lsp-request "workspace/executeCommand" (list :command command :arguments args))))
     ((hermes-lsp--eglot-server)
      (let ((server (hermes-lsp--eglot-server)))
        (if (fboundp 'eglot-execute)
            (eglot-execute server (list :command command :arguments args))
          (with-no-warnings (eglot-execute-command server command args)))))
     (t (user-error "No hermes-lsp here: M-x lsp (after `hermes-lsp-lsp-mode-setup'), or M-x eglot in a buffer of `hermes-lsp-eglot-modes'")))))

(defun hermes-lsp--position (pos)
  "POS as an LSP position, in the client's encoding."
  (save-excursion
    (goto-char pos)
    (cond ((hermes-lsp--lsp-workspace) (lsp--point-to-position pos))
          ((fboundp 'eglot--pos-to-lsp-position) (eglot--pos-to-lsp-position pos))
          (t (list :line (1- (line-number-at-pos pos)) :character (- pos (line-beginning-position)))))))

;;;###autoload
(defun hermes-lsp-ask (prompt)
  "Run an agent turn (hermes.ask) with PROMPT in the current file's folder.
With an active region, its lines go with PROMPT."
  (interactive "sHermes: ")
  (let ((arg (list :prompt prompt :uri (hermes-lsp--uri))))
    (when (use-region-p)
      (setq arg (append arg (list :range (list :start (hermes-lsp--position (region-beginning))
                                               :end (hermes-lsp--position (region-end)))))))
    (hermes-lsp-execute "hermes.ask" arg)))

;;;###autoload
(defun hermes-lsp-stop ()
  "Stop the running turn of the current file's folder (hermes.cancel)."
  (interactive)
  (hermes-lsp-execute "hermes.cancel" (list :uri (hermes-lsp--uri))))

;;;###autoload
(defun hermes-lsp-status ()
  "Show each folder's thread, tokens and waiting approvals (hermes.status)."
  (interactive)
  (let* ((status (hermes-lsp-execute "hermes.status"))
         (folders (append (hermes-lsp-get status :folders) nil))
         (lines (mapcar (lambda (f)
                          (format "%s: thread %s, %s tokens, %d waiting approvals"
                                  (hermes-lsp-get f :folder)
                                  (let ((id (hermes-lsp-get f :threadId))) (if (or (null id) (equal id "")) "none" id))
                                  (hermes-lsp-get (hermes-lsp-get f :usage) :totalTokens)
                                  (length (hermes-lsp-get f :pendingApprovals))))
                        folders)))
    (message "Hermes: %s" (if lines (string-join lines "; ") "no folder yet"))
    status))

;;;###autoload
(defun hermes-lsp-threads ()
  "Resume one of the folder's past threads (hermes.resumeThread)."
  (interactive)
  (let* ((uri (hermes-lsp--uri))
         (threads (append (hermes-lsp-execute "hermes.threads" (list :uri uri)) nil))
         (choices (mapcar (lambda (th) (cons (format "%s (%s)" (hermes-lsp-get th :title) (hermes-lsp-get th :updatedAt))
                                             (hermes-lsp-get th :threadId)))
                          threads)))
    (unless choices
      (user-error "Hermes: no past thread in this folder"))
    (let ((pick (completing-read "Hermes thread: " choices nil t)))
      (hermes-lsp-execute "hermes.resumeThread" (list :uri uri :threadId (cdr (assoc pick choices)))))))

;;;###autoload
(defun hermes-lsp-login (&optional device-code)
  "Sign codex in to your ChatGPT account (hermes.login).
With a prefix argument DEVICE-CODE, sign in with a code, from a
browser on another machine."
  (interactive "P")
  (let* ((res (hermes-lsp-execute "hermes.login" (list :method (if device-code "deviceCode" "chatgpt"))))
         (url (hermes-lsp-get res :url)))
    (cond ((hermes-lsp-get res :alreadySignedIn)
           (message "Hermes: codex is already signed in"))
          ((and url (not (eq (hermes-lsp-get res :opened) t)) (not device-code))
           (browse-url url))
          (url (message "Hermes: open %s%s" url
                        (let ((code (hermes-lsp-get res :userCode))) (if code (format " and enter %s" code) "")))))
    res))

(provide 'hermes-lsp)
;;; hermes-lsp.el ends here
