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
;; The commands (`hermes-lsp-ask', `hermes-lsp-approve', `hermes-lsp-transcript', `hermes-lsp-undo',
;; `hermes-lsp-review', `hermes-lsp-model', `hermes-lsp-resume', `hermes-lsp-stop',
;; `hermes-lsp-status', `hermes-lsp-threads', `hermes-lsp-login') go to whichever of the two serves
;; the buffer.  Approvals are asked in the minibuffer (Deny is the default: RET never grants), with
;; the command or the patch's diff in a `diff-mode' buffer; C-g leaves the approval waiting for
;; `hermes-lsp-approve'.  The agent's work shows as progress in the mode line, under eglot as under
;; lsp-mode.  Files the agent writes are reloaded from disk (`auto-revert-mode', see
;; `hermes-lsp-auto-revert').
;;
;;   (add-to-list 'load-path "/path/to/hermes-lsp/editors/emacs")
;;   (require 'hermes-lsp)
;;   (with-eval-after-load 'lsp-mode (hermes-lsp-lsp-mode-setup))   ; beside your servers
;;   (with-eval-after-load 'eglot (hermes-lsp-eglot-setup))         ; text, markdown, org

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'hermes-lsp-approvals)

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
agent.kind, agent.command, agent.args, agent.env, approvals.mode,
yolo) are taken from here only: this is the editor's launch
configuration, not a project's.

:agent runs an agent of the Agent Client Protocol instead of
codex, for example Gemini CLI:

  (:agent (:kind \"acp\" :command \"gemini\" :args [\"--acp\"]))

:args may be a list or a vector, :env a plist of names and
values (:env (:GEMINI_API_KEY \"...\"))."
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

(defcustom hermes-lsp-auto-revert t
  "Whether buffers hermes-lsp serves follow the files the agent writes.
Non-nil turns on `auto-revert-mode' in each buffer hermes-lsp
serves and tells the server so (experimental.hermes.reloadsBuffers):
a file codex wrote is reloaded from disk, and the server sends no
whole-document edit after it (which made Emacs ask \"File changed
on disk\" mid-turn).  nil: the server replaces a clean buffer's
text itself."
  :type 'boolean)

(defun hermes-lsp--initialization-options ()
  "The initializationOptions the server gets.
The turn events are on (the approvals' commands and diffs come
with them) unless `hermes-lsp-settings' says otherwise.  The
arguments of codex and of the agent go as JSON arrays even when
written as lists (a list is a JSON object to eglot and lsp-mode)."
  (let ((settings (copy-sequence hermes-lsp-settings)))
    (unless (plist-member settings :turnEvents)
      (setq settings (plist-put settings :turnEvents t)))
    (dolist (key '(:codex :agent))
      (let ((program (plist-get settings key)))
        (when (and (consp program) (consp (plist-get program :args)))
          (setq settings (plist-put settings key (plist-put (copy-sequence program) :args
                                                            (vconcat (plist-get program :args))))))))
    (list :hermes settings)))

(defun hermes-lsp--experimental ()
  "The experimental.hermes capabilities this client declares, as a plist."
  (list :emacs t :reloadsBuffers (if hermes-lsp-auto-revert t :json-false)))

(defun hermes-lsp--follow-disk ()
  "Turn on `auto-revert-mode' here, if `hermes-lsp-auto-revert' is non-nil."
  (when (and hermes-lsp-auto-revert (buffer-file-name) (not (bound-and-true-p auto-revert-mode)))
    (auto-revert-mode 1)))

;;;; lsp-mode

(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function lsp-workspaces "lsp-mode")
(declare-function lsp--workspace-client "lsp-mode")
(declare-function lsp--client-server-id "lsp-mode")
(declare-function lsp-request-async "lsp-mode")
(declare-function lsp--point-to-position "lsp-mode")
(declare-function lsp--buffer-uri "lsp-mode")
(defvar lsp--cur-workspace)
(defvar lsp-response-timeout)

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
    :custom-capabilities
    `((experimental . ((hermes . ((emacs . t)
                                  (reloadsBuffers . ,(if hermes-lsp-auto-revert t :json-false)))))))
    :request-handlers (let ((h (make-hash-table :test #'equal)))
                        (puthash "window/showMessageRequest"
                                 (lambda (_workspace params)
                                   (let ((title (hermes-lsp--prompt (hermes-lsp-get params :message)
                                                                    (hermes-lsp-get params :actions))))
                                     (and title (list :title title))))
                                 h)
                        h)
    :notification-handlers (let ((h (make-hash-table :test #'equal)))
                             ;; lsp-mode shows the progress; the events bring the approvals' details.
                             (puthash "hermes/turnEvent" (lambda (_workspace params) (hermes-lsp--turn-event params)) h)
                             h)
    :after-open-fn #'hermes-lsp--follow-disk)))

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
(declare-function eieio-object-class-name "eieio")
(defvar eglot-server-programs)
(defvar auto-revert-mode)

;;;###autoload
(defun hermes-lsp-eglot-setup ()
  "Give `hermes-lsp-eglot-modes' to hermes-lsp under eglot.
Only those: eglot runs one server per buffer."
  (require 'eglot)
  (hermes-lsp--define-eglot-server)
  (add-hook 'eglot-managed-mode-hook #'hermes-lsp--eglot-managed)
  (add-to-list 'mode-line-misc-info '(:eval (hermes-lsp--mode-line)))
  (add-to-list 'eglot-server-programs
               (cons hermes-lsp-eglot-modes
                     (cons 'hermes-lsp-eglot-server
                           (append hermes-lsp-command
                                   (list :initializationOptions (hermes-lsp--initialization-options)))))))

(defvar hermes-lsp--eglot-defined nil
  "Whether `hermes-lsp-eglot-server' and its methods are defined.")

(defun hermes-lsp--define-eglot-server ()
  "Define `hermes-lsp-eglot-server', eglot's server class for hermes-lsp.
It adds to eglot 1.9's capabilities work-done progress (shown in
the mode line) and the experimental.hermes flags, and answers the
server's approval prompts and turn events.  Defined at run time,
once eglot is loaded: eglot is not needed otherwise."
  (unless hermes-lsp--eglot-defined
    (setq hermes-lsp--eglot-defined t)
    (eval
     '(progn
        (defclass hermes-lsp-eglot-server (eglot-lsp-server) ()
          :documentation "hermes-lsp under eglot.")
        (cl-defmethod eglot-client-capabilities :around ((_server hermes-lsp-eglot-server))
          (let ((caps (cl-call-next-method)))
            (plist-put caps :window (append (list :workDoneProgress t) (plist-get caps :window)))
            (plist-put caps :experimental (list :hermes (hermes-lsp--experimental)))))
        (cl-defmethod eglot-handle-request
          ((_server hermes-lsp-eglot-server) (_method (eql window/showMessageRequest)) &key _type message actions)
          (let ((title (hermes-lsp--prompt message actions)))
            (and title (list :title title))))
        (cl-defmethod eglot-handle-request
          ((_server hermes-lsp-eglot-server) (_method (eql window/workDoneProgress/create)) &rest _)
          nil)
        (cl-defmethod eglot-handle-notification
          ((server hermes-lsp-eglot-server) (_method (eql $/progress)) &key token value)
          (hermes-lsp--progress server token value))
        (cl-defmethod eglot-handle-notification
          ((_server hermes-lsp-eglot-server) (_method (eql hermes/turnEvent)) &rest params)
          (hermes-lsp--turn-event params)))
     t)))

(defun hermes-lsp--eglot-managed ()
  "Follow the disk in a buffer eglot manages with hermes-lsp."
  (let ((server (hermes-lsp--eglot-server)))
    (when (and server (hermes-lsp--hermes-eglot-p server) (bound-and-true-p eglot--managed-mode))
      (hermes-lsp--follow-disk))))

(defun hermes-lsp--hermes-eglot-p (server)
  "Whether the eglot SERVER is hermes-lsp's."
  (eq (eieio-object-class-name server) 'hermes-lsp-eglot-server))

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
        (hermes-lsp--lsp-request (list :command command :arguments args))))
     ((hermes-lsp--eglot-server)
      (let ((server (hermes-lsp--eglot-server)))
        (if (fboundp 'eglot-execute)
            (eglot-execute server (list :command command :arguments args))
          (with-no-warnings (eglot-execute-command server command args)))))
     (t (user-error "No hermes-lsp here: M-x lsp (after `hermes-lsp-lsp-mode-setup'), or M-x eglot in a buffer of `hermes-lsp-eglot-modes'")))))

(defun hermes-lsp--lsp-request (params)
  "Send workspace/executeCommand with PARAMS through lsp-mode; return its result.
Not `lsp-request': lsp-mode 8 answers it by throwing out of its
process filter, which drops the messages read with the answer (a
turn event, a prompt).  Here the answer sets a variable, and the
wait reads output until it has come (`lsp-response-timeout')."
  (let ((deadline (+ (float-time) lsp-response-timeout))
        (done nil) (result nil) (failure nil))
    (lsp-request-async "workspace/executeCommand" params
                       (lambda (r) (setq done t result r))
                       :error-handler (lambda (e) (setq done t failure e))
                       :mode 'detached)
    (while (and (not done) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (cond ((not done) (error "Hermes: no answer from hermes-lsp to %s" (plist-get params :command)))
          (failure (error "%s" (or (hermes-lsp-get failure :message) failure)))
          (t result))))

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

(defun hermes-lsp--said (text)
  "TEXT, a word the agent chose, fit for one line.
Control characters removed, at most 60 characters."
  (truncate-string-to-width (replace-regexp-in-string "[[:cntrl:]]" "" (if (stringp text) text "")) 60 nil nil "…"))

(defun hermes-lsp--agent-line (agent)
  "Name AGENT, hermes.status's agent, for a message.
\"codex 0.171.0\", or for an agent of another kind \"gemini-cli
0.61.0 (ACP; lacks compact, login)\"; nil without AGENT."
  (when agent
    (let* ((name (hermes-lsp--said (hermes-lsp-get agent :name)))
           (version (hermes-lsp--said (hermes-lsp-get agent :version)))
           (kind (hermes-lsp-get agent :kind))
           (lacks (mapcar #'hermes-lsp--said (append (hermes-lsp-get agent :lacks) nil)))
           (line (string-join (seq-remove #'string-empty-p (list (if (string-empty-p name) "unnamed" name) version)) " ")))
      (if (equal kind "codex")
          line
        (format "%s (%s%s)" line (upcase (hermes-lsp--said kind))
                (if lacks (concat "; lacks " (string-join lacks ", ")) ""))))))

;;;###autoload
(defun hermes-lsp-status ()
  "Show each folder's thread, tokens, approvals and the agent (hermes.status)."
  (interactive)
  (let* ((status (hermes-lsp-execute "hermes.status"))
         (folders (append (hermes-lsp-get status :folders) nil))
         (lines (mapcar (lambda (f)
                          (format "%s: thread %s, %s tokens, %d waiting approvals"
                                  (hermes-lsp-get f :folder)
                                  (let ((id (hermes-lsp-get f :threadId))) (if (or (null id) (equal id "")) "none" id))
                                  (hermes-lsp-get (hermes-lsp-get f :usage) :totalTokens)
                                  (length (hermes-lsp-get f :pendingApprovals))))
                        folders))
         (agent (hermes-lsp--agent-line (hermes-lsp-get status :agent))))
    (message "Hermes: %s%s" (if lines (string-join lines "; ") "no folder yet")
             (if agent (format "; agent %s" agent) ""))
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

;;;; Progress (turn events and approvals: hermes-lsp-approvals.el)

(defvar hermes-lsp--progress-by-server (make-hash-table :test #'eq :weakness 'key)
  "Per eglot server, its running work-done progress: (TITLE . MESSAGE).")

(defun hermes-lsp--progress (server _token value)
  "Show SERVER's work-done progress VALUE in the mode line (eglot).
lsp-mode shows progress itself."
  (if (equal (hermes-lsp-get value :kind) "end")
      (remhash server hermes-lsp--progress-by-server)
    (let ((old (gethash server hermes-lsp--progress-by-server)))
      (puthash server (cons (or (hermes-lsp-get value :title) (car old) "working")
                            (or (hermes-lsp-get value :message) (cdr old)))
               hermes-lsp--progress-by-server)))
  (force-mode-line-update t))

(defun hermes-lsp--mode-line ()
  "The mode line's Hermes progress in this buffer: eglot's hermes-lsp only."
  (let* ((server (hermes-lsp--eglot-server))
         (p (and server (gethash server hermes-lsp--progress-by-server))))
    (when p
      (format " [Hermes: %s]"
              (truncate-string-to-width (string-join (delq nil (list (car p) (cdr p))) ": ") 60 nil nil "…")))))

;;;; Transcripts: the conversation you reply in

(defvar-local hermes-lsp--origin nil
  "In a transcript, the buffer whose hermes-lsp connection replies go through.")

(defvar hermes-lsp-transcript-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'hermes-lsp-reply)
    map)
  "Keymap of `hermes-lsp-transcript-mode'.")

(define-minor-mode hermes-lsp-transcript-mode
  "A thread's transcript, live: it follows the file as the turn writes it.
\\<hermes-lsp-transcript-mode-map>\\[hermes-lsp-reply] replies: a new turn on the transcript's thread, in its folder."
  :lighter " Hermes-transcript"
  (when hermes-lsp-transcript-mode
    (auto-revert-mode 1)
    (setq buffer-read-only t)))

;;;###autoload
(defun hermes-lsp-transcript ()
  "Open the live transcript of the current folder's thread (hermes.showTranscript).
Reply in it with \\<hermes-lsp-transcript-mode-map>\\[hermes-lsp-reply]."
  (interactive)
  (let* ((origin (current-buffer))
         (res (hermes-lsp-execute "hermes.showTranscript" (list :uri (hermes-lsp--uri))))
         (buf (find-file-noselect (hermes-lsp-get res :path))))
    (with-current-buffer buf
      (setq hermes-lsp--origin origin)
      (hermes-lsp-transcript-mode 1))
    (pop-to-buffer buf)
    buf))

(defun hermes-lsp-reply (prompt)
  "Reply PROMPT in this transcript: a turn on its thread, in the thread's folder.
It goes through the connection of the buffer the transcript was
opened from (`hermes-lsp-transcript'), else this buffer's."
  (interactive "sHermes reply: ")
  (let ((uri (hermes-lsp--uri))
        (origin (if (buffer-live-p hermes-lsp--origin) hermes-lsp--origin (current-buffer))))
    (with-current-buffer origin
      (hermes-lsp-execute "hermes.ask" (list :prompt prompt :uri uri)))))

;;;; Undo, review, model, threads

(defun hermes-lsp--plural (n what)
  "N WHAT, with an s unless N is 1."
  (format "%d %s%s" n what (if (= n 1) "" "s")))

;;;###autoload
(defun hermes-lsp-undo (&optional force)
  "Undo the last turn's patches in this folder (hermes.undoTurn).
Buffers the undo's edit restored, that had no unsaved changes, are
saved.  With a prefix argument FORCE, restore files changed since
the turn too."
  (interactive "P")
  (let* ((clean (seq-filter (lambda (b) (and (buffer-file-name b) (not (buffer-modified-p b)))) (buffer-list)))
         (res (hermes-lsp-execute "hermes.undoTurn" (list :uri (hermes-lsp--uri) :force (if force t :json-false))))
         (restored (append (hermes-lsp-get res :restored) nil))
         (skipped (append (hermes-lsp-get res :skipped) nil)))
    (dolist (b clean)
      (when (and (buffer-live-p b) (buffer-modified-p b))
        (with-current-buffer b (save-buffer))))
    (message "Hermes: undid turn %s: %s restored%s" (hermes-lsp-get res :turnId)
             (hermes-lsp--plural (length restored) "file")
             (if skipped
                 (format ", %s left (%s: %s)" (length skipped)
                         (hermes-lsp-get (car skipped) :path) (hermes-lsp-get (car skipped) :reason))
               ""))
    res))

;;;###autoload
(defun hermes-lsp-review (&optional target)
  "Ask codex for a review of the folder's uncommitted work (hermes.review).
The findings become diagnostics.  With a prefix argument, choose
TARGET: a base branch, a commit or instructions of your own."
  (interactive
   (list (when current-prefix-arg
           (pcase (completing-read "Review: " '("uncommitted changes" "base branch" "commit" "instructions") nil t)
             ("base branch" (list :type "baseBranch" :branch (read-string "Base branch: ")))
             ("commit" (list :type "commit" :sha (read-string "Commit: ")))
             ("instructions" (list :type "custom" :instructions (read-string "Review instructions: ")))
             (_ nil)))))
  (hermes-lsp-execute "hermes.review" (append (list :uri (hermes-lsp--uri)) (and target (list :target target)))))

;;;###autoload
(defun hermes-lsp-model ()
  "Choose the folder's model and reasoning effort (hermes.models, hermes.setModel)."
  (interactive)
  (let* ((uri (hermes-lsp--uri))
         (models (append (hermes-lsp-execute "hermes.models" (list :uri uri)) nil))
         (choices (mapcar (lambda (m) (cons (format "%s%s" (hermes-lsp-get m :id)
                                                    (if (eq (hermes-lsp-get m :current) t) " (current)" ""))
                                            m))
                          models)))
    (unless choices
      (user-error "Hermes: codex lists no model"))
    (let* ((model (cdr (assoc (completing-read "Hermes model: " choices nil t) choices)))
           (efforts (append (hermes-lsp-get model :efforts) nil))
           (effort (if efforts
                       (completing-read "Reasoning effort: " efforts nil t nil nil (hermes-lsp-get model :defaultEffort))
                     "")))
      (hermes-lsp-execute "hermes.setModel" (list :uri uri :model (hermes-lsp-get model :id) :effort effort)))))

;;;###autoload
(defalias 'hermes-lsp-resume #'hermes-lsp-threads
  "Resume one of the folder's past threads (hermes.threads, hermes.resumeThread).")

(provide 'hermes-lsp)
;;; hermes-lsp.el ends here
